import { oldApi } from "./api";

export const total = (xs: number[]) => xs.reduce((acc, x) => oldApi(acc, x), 0);
// oldApi(1, 2) in a comment is no call
export const name = "oldApi(1, 2)";
