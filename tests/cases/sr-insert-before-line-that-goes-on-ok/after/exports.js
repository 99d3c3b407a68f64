function explainNode(n) {
  return n.name
}

// the public names
module.exports = { explainNode } // used by the CLI
