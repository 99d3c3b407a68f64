function parse(text) {
  const rows = text.split('\n');
  // drop empty rows
  return rows.filter(Boolean);
}

module.exports = { parse };
