export class Cart {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item);
  }

  remove(item) {
    this.items = this.items.filter((x) => x !== item);
  }

  total() {
    return this.items.reduce((s, x) => s + x.price, 0);
  }
}
