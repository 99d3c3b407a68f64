function Fund() {}

module.exports = Fund   
