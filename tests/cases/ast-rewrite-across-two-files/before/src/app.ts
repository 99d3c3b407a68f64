import { oldApi } from "./api";

export function main(): number {
  const x = oldApi(1, 2);
  return oldApi(x, oldApi(3, 4));
}
