import type { LogSink } from '#core/logger';

/**
 * Counts the bytes the service writes while one request is served: its
 * logger's lines (stdout on Lambda, where CloudWatch Logs ingests them) and
 * anything else written to stdout or stderr meanwhile. Outside `during` the
 * logger's lines are dropped, as the benchmark's own output is the tables.
 */
export function logCapture(): { sink: LogSink; during<T>(work: () => Promise<T>): Promise<{ value: T; bytes: number }> } {
  let bytes = 0;
  let active = false;
  return {
    sink: (line) => {
      if (active) bytes += Buffer.byteLength(line) + 1;
    },
    async during(work) {
      const streams = [process.stdout, process.stderr];
      const writes = streams.map((stream) => stream.write);
      streams.forEach((stream, i) => {
        stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
          bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
          return (writes[i] as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
        }) as typeof stream.write;
      });
      [bytes, active] = [0, true];
      try {
        const value = await work();
        return { value, bytes };
      } finally {
        active = false;
        streams.forEach((stream, i) => (stream.write = writes[i]!));
      }
    },
  };
}
