function a () {
  if (x) {
    foo()
  }
  done()
}

function b () {
  if (y) {
    bar()
  }  // changed since
  baz()
}
