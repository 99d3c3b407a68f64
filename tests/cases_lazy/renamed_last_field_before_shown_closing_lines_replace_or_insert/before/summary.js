function summary(data, key, total) {
  if (!data) {
    return null
  }
  const value = total / 2
  return {
    ...data,
    key,
    value,
    total,
    done,
  }
}
module.exports = summary
