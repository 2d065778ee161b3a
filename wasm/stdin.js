'use strict';
// Standard input for the WASI language server (asyncfix-lsp.js), with a poll that works.
//
// The server asks poll() whether a message is waiting, and settles its documents (a fresh parse
// and lint) only when none is (lsp/server.cpp), as a native server does. node:wasi's
// poll_oneoff never reports a pipe or socket as readable, so every keystroke would be settled.
// Here a worker thread reads standard input, blocking, into a buffer shared with the module's
// thread; poll_oneoff and fd_read on descriptor 0 are answered from it, and everything else is
// left to node:wasi. One chunk is in flight at a time: the reader waits until it is taken.
const { Worker } = require('node:worker_threads');

const CHUNK = 1 << 16;
// header: [0] state (0: empty, 1: a chunk or the end is there), [1] the chunk's length, [2] end of input
const STATE = 0;
const LENGTH = 1;
const END = 2;

/** The WASI imports with fd 0's reads and polls answered by a reader thread. */
function withStdinReader(wasiImport, memoryOf) {
  const shared = new SharedArrayBuffer(16 + CHUNK);
  const header = new Int32Array(shared, 0, 4);
  const data = new Uint8Array(shared, 16);
  const worker = new Worker(
    `
    const fs = require('node:fs');
    const { workerData } = require('node:worker_threads');
    const header = new Int32Array(workerData, 0, 4);
    const data = new Uint8Array(workerData, 16);
    const buffer = Buffer.alloc(data.length);
    for (;;) {
      let n = 0;
      try {
        n = fs.readSync(0, buffer, 0, buffer.length, null);
      } catch (e) {
        if (e.code === 'EAGAIN') { Atomics.wait(header, 3, 0, 5); continue; } // a non-blocking descriptor
        n = 0; // an error reading: the end of the input
      }
      while (Atomics.load(header, ${STATE}) !== 0) Atomics.wait(header, ${STATE}, 1);
      if (n > 0) { data.set(buffer.subarray(0, n)); header[${LENGTH}] = n; }
      else header[${END}] = 1;
      Atomics.store(header, ${STATE}, 1);
      Atomics.notify(header, ${STATE});
      if (n <= 0) break;
    }
    `,
    { eval: true, workerData: shared },
  );
  worker.unref(); // the module's exit ends the process, reader or not
  let pending = Buffer.alloc(0);
  let ended = false;

  /** Takes what the reader has, waiting at most `ms` (Infinity: until it has something). */
  function take(ms) {
    if (pending.length > 0 || ended) return true;
    if (Atomics.load(header, STATE) === 0) {
      if (ms <= 0) return false;
      Atomics.wait(header, STATE, 0, ms === Infinity ? undefined : ms);
      if (Atomics.load(header, STATE) === 0) return false;
    }
    if (header[END]) ended = true;
    else pending = Buffer.from(data.subarray(0, header[LENGTH]));
    Atomics.store(header, STATE, 0);
    Atomics.notify(header, STATE);
    return true;
  }

  const view = () => new DataView(memoryOf().buffer);

  function fd_read(fd, iovs, iovsLen, nread) {
    if (fd !== 0) return wasiImport.fd_read(fd, iovs, iovsLen, nread);
    take(Infinity);
    const v = view();
    const bytes = new Uint8Array(memoryOf().buffer);
    let total = 0;
    for (let i = 0; i < iovsLen && pending.length > 0; i++) {
      const base = v.getUint32(iovs + 8 * i, true);
      const length = v.getUint32(iovs + 8 * i + 4, true);
      const n = Math.min(length, pending.length);
      bytes.set(pending.subarray(0, n), base);
      pending = pending.subarray(n);
      total += n;
    }
    v.setUint32(nread, total, true);
    return 0;
  }

  // Subscriptions are 48 bytes (userdata u64, type u8 at 8, then at 16 the clock's id u32,
  // timeout u64 at 24, flags u16 at 40; or the descriptor u32 at 16); events 32 bytes (userdata,
  // error u16 at 8, type u8 at 10, nbytes u64 at 16, flags u16 at 24).
  function poll_oneoff(inPtr, outPtr, nsubscriptions, neventsPtr) {
    let v = view();
    const subs = [];
    for (let i = 0; i < nsubscriptions; i++) {
      const at = inPtr + 48 * i;
      const type = v.getUint8(at + 8);
      const sub = { userdata: v.getBigUint64(at, true), type };
      if (type === 0) {
        if (v.getUint16(at + 40, true) !== 0) return wasiImport.poll_oneoff(inPtr, outPtr, nsubscriptions, neventsPtr);
        sub.ms = Number(v.getBigUint64(at + 24, true) / 1000000n);
      } else {
        sub.fd = v.getUint32(at + 16, true);
        if (type !== 1 || sub.fd !== 0) return wasiImport.poll_oneoff(inPtr, outPtr, nsubscriptions, neventsPtr);
      }
      subs.push(sub);
    }
    const clock = subs.find((s) => s.type === 0);
    const reads = subs.filter((s) => s.type === 1);
    const waitMs = clock ? clock.ms : Infinity;
    const ready = reads.length > 0 && take(waitMs);
    if (reads.length === 0 && clock && clock.ms > 0) Atomics.wait(header, 3, 0, clock.ms);
    v = view();
    const events = ready ? reads : clock ? [clock] : [];
    events.forEach((s, i) => {
      const at = outPtr + 32 * i;
      v.setBigUint64(at, s.userdata, true);
      v.setUint16(at + 8, 0, true);
      v.setUint8(at + 10, s.type);
      v.setBigUint64(at + 16, BigInt(s.type === 1 ? pending.length : 0), true);
      v.setUint16(at + 24, s.type === 1 && ended ? 1 : 0, true); // fd_readwrite_hangup
    });
    v.setUint32(neventsPtr, events.length, true);
    return 0;
  }

  return { ...wasiImport, fd_read, poll_oneoff };
}

module.exports = { withStdinReader };
