const config = {
  name: "x",
  items: [
    1,
    2,
  ],
  mode: "fast",
  size: 10,
};

export function start(cfg) {
  return run(cfg);
}
