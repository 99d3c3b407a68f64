import {a, b} from 'x';
import {c} from 'y';

export function createFromReadableStream(stream) {
  const batchUID = next();
  return wrap(stream, batchUID);
}

export function other() {
  return 3;
}
