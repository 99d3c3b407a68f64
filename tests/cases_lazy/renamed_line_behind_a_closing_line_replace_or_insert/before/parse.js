function parseHunk (hunk, chunkHeader) {
    hunk.oldStart = +chunkHeader[1];
    if (hunk.newLines === 0) {
        hunk.newStart += 1;
    }
    var addCount = 0, removeCount = 0;
    return hunk;
}
