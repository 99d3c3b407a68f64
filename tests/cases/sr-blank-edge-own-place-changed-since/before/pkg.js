class Pkg {
  async set (args) {
    const pkgJson = await PackageJson.load(path)
    const q = new Queryable(pkgJson.content)
    q.set(args)
  }

  async delete (args) {
    const path = this.prefix

    const pkgJson = await PackageJson.load(path, { strict: true })
    const q = new Queryable(pkgJson.content)
    q.delete(args)
    return pkgJson.update(q.toJSON())
  }
}
