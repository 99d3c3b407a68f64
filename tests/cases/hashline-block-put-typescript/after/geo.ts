import { Injectable } from "./di";

export interface Point {
  x: number;
  y: number;
}

export function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
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
