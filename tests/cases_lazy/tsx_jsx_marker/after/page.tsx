export function Page({ title }: { title: string }) {
  return (
    <main>
      <h1>{title}</h1>
      <nav>Menu</nav>
      <p>Welcome</p>
      <footer>Bye</footer>
    </main>
  );
}
