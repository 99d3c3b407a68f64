function explainNode(n) {
  return n.name
}

module.exports = { explainNode } // used by the CLI
