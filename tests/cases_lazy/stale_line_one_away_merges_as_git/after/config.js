const config = {
  name: "x",
  items: [
    1,
    2,  // changed meanwhile
  ],
  mode: "slow",
  size: 10,
};

export function start(cfg) {
  return run(cfg);
}
