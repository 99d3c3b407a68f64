function explainNode(n) {
  if (!n) return ""
  return n.name
}

module.exports = { explainNode } // used by the CLI
