function f(x) {
  if (x) {
    return x + 1;
  }
  return 0;
}
