import { oldApi } from "./api";

export function main(): number {
  const x = newApi(1, 2);
  return newApi(x, oldApi(3, 4));
}
