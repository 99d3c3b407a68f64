export function oldApi(a: number, b: number): number {
  return a + b;
}
