export function Button({ label, ...rest }) {
  // pass the remaining props through to the element
  return <button className="btn" {...rest}>{label}</button>;
}
