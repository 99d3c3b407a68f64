import { Injectable } from "./di";


export function distance(a: Point, b: Point): number {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  return Math.sqrt(dx * dx + dy * dy);
}

export class Tracker {
  private seen: Point[] = [];

  @Injectable()
  track(p: Point): void {
    this.seen.push(p);
  }

  count(): number {
    return this.seen.length;
  }
}
