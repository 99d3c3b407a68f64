function Fund() {}

module.exports = Fund   
// checked
