const load = async (name, opts = {}) => {
  const hits = []
  for (const dir of opts.dirs) {
    const p = dir + '/' + name
    if (await exists(p)) {
      if (!opts.all) {
        return p
      }
      hits.push(p)
    }
  }

  if (opts.all && hits.length) {
    return hits
  }

  throw missing(name)
}

const loadSync = (name, opts = {}) => {
  const hits = []
  for (const dir of opts.dirs) {
    const p = dir + '/' + name
    if (existsSync(p)) {
      if (!opts.all) {
        return p
      }
      hits.push(p)
    }
  }

  if (opts.all && hits.length) {
    return hits
  }

  throw missing(name)
}

module.exports = { load, loadSync }
