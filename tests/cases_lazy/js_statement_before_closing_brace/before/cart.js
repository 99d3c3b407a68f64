import { readFile } from "node:fs/promises";

export class Cart {
  constructor(items = []) {
    this.items = items;
  }

  add(item) {
    this.items.push(item);
    return this;
  }

  total() {
    let sum = 0;
    for (const item of this.items) {
      sum += item.price;
    }
    return sum;
  }
}

export async function loadCart(path) {
  const text = await readFile(path, "utf8");
  return new Cart(JSON.parse(text));
}
