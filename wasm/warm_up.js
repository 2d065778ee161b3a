'use strict';
// A warm-up of the WebAssembly language server's keystroke path (asyncfix-lsp.js, docs/wasm.md).
//
// V8 compiles a WebAssembly function with its baseline compiler (Liftoff) when it is first
// called, and with its optimizing compiler (TurboFan) once it has run enough; the optimized code
// then serves every instance of the module. didOpen runs the full parse and lint, but the
// keystroke path (an edit, the incremental parse and lint, a publish) first runs on the user's
// first keystrokes: under Node 20 the first ten or so took 5–30 ms each at 20 000 lines instead of
// 2 ms. Here a second instance of the same module, on a worker thread, is the server for a short
// scripted session (a small training script opened, lines typed into it and deleted), answered
// from memory and its output dropped, while the real server starts: by the time the user types,
// the functions of that path are compiled and optimized. The worker never keeps the process
// alive, stops at the end of its script, and reaches no file nor stream.
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

/** The scripted session: LSP messages, each framed in a buffer of its own. */
function session() {
  const frames = [];
  const send = (message) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
    frames.push(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  };
  const uri = 'untitled:warm-up.py';
  // A training script as such files go (loaders, a loop, tensors moved to the device, a
  // coroutine): a few hundred lines, so that each function's work is as on a real file.
  const block = (i) => [
    `def train_${i}(model, loader, optimizer, device):`,
    '    model.train()',
    '    total = 0.0',
    '    for step, (batch, target) in enumerate(loader):',
    '        batch = batch.to(device, non_blocking=True)',
    `        output = model(batch.cuda(${i % 2 ? 'non_blocking=True' : ''}))`,
    '        loss = F.cross_entropy(output, target)',
    '        optimizer.zero_grad()',
    '        loss.backward()',
    '        optimizer.step()',
    "        total += loss.item() if step % 10 else float(loss.data[0])",
    `    return {"loss": total / max(1, len(loader)), "id": ${i}}`,
    '',
    `async def fetch_${i}(queue, timeout=1.5):`,
    '    item = await queue.get()',
    "    return [x for x in item if x is not None] or {'empty': True}",
    '',
    '',
  ];
  const lines = ['import torch', 'import torch.nn.functional as F', '', ''];
  for (let i = 0; i < 24; i++) lines.push(...block(i));
  const text = lines.join('\n');
  send({ id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
  send({ method: 'initialized', params: {} });
  send({ method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'python', version: 1, text } } });
  let version = 1;
  const change = (line, character, endLine, endCharacter, insert) =>
    send({
      method: 'textDocument/didChange',
      params: {
        textDocument: { uri, version: ++version },
        contentChanges: [
          { range: { start: { line, character }, end: { line: endLine, character: endCharacter } }, text: insert },
        ],
      },
    });
  // Typed into the middle of a function, one character a change, and deleted again.
  const typed = ['        x = batch.cuda(async=True) + [1, 2][0]', "        print(f'{step}: {loss}', total)"];
  let id = 2;
  for (const [k, line] of typed.entries()) {
    const at = 4 + 18 * (8 + 4 * k) + 5;
    for (let c = 0; c < line.length; c++) change(at, c, at, c, line[c]);
    change(at, line.length, at, line.length, '\n');
    const here = { line: at, character: 8 };
    send({
      id: id++,
      method: 'textDocument/codeAction',
      params: { textDocument: { uri }, range: { start: here, end: here }, context: { diagnostics: [] } },
    });
    send({ id: id++, method: 'textDocument/hover', params: { textDocument: { uri }, position: here } });
    change(at, line.length, at + 1, 0, '');
    for (let c = line.length; c > 0; c--) change(at, c - 1, at, c, '');
  }
  // A document's first edit does more (its tree split into statements, its lint's first
  // update), in proportion to its size: a few larger documents, each opened, edited once and
  // closed.
  const large = Array(4).fill(text).join('\n');
  for (let k = 0; k < 4; k++) {
    const other = `untitled:warm-up-${k}.py`;
    send({ method: 'textDocument/didOpen', params: { textDocument: { uri: other, languageId: 'python', version: 1, text: large } } });
    const at = 4 + 18 * (30 + 6 * k) + 1;
    const edit = (c, end, insert) => ({ range: { start: { line: at, character: c }, end: { line: at, character: end } }, text: insert });
    send({ method: 'textDocument/didChange', params: { textDocument: { uri: other, version: 2 }, contentChanges: [edit(4, 4, 'x')] } });
    send({ method: 'textDocument/didChange', params: { textDocument: { uri: other, version: 3 }, contentChanges: [edit(4, 5, '')] } });
    send({ method: 'textDocument/didClose', params: { textDocument: { uri: other } } });
  }
  send({ id: id++, method: 'shutdown' });
  send({ method: 'exit' });
  return frames;
}

/** The worker: the server's module serving session() from memory, its output dropped. */
function serve() {
  const { WASI } = require('node:wasi');
  // The lowest priority for this thread where the system has one for threads (Linux: a thread
  // is a task of its own), so that it takes no time from the server's start on a busy machine.
  try {
    const task = require('node:fs').readlinkSync('/proc/thread-self').split('/').pop();
    require('node:os').setPriority(Number(task), 19);
  } catch {}
  process.removeAllListeners('warning');
  process.on('warning', () => {});
  // One message at a time, and a poll without waiting finds none after each: the server then
  // publishes, as between two keystrokes. A poll that waits finds the next one (no settle).
  const frames = session();
  let frame = 0;
  let at = 0;
  let idleOwed = false;
  const written = { 1: [], 2: [] };
  let instance;
  const view = () => new DataView(instance.exports.memory.buffer);
  const wasi = new WASI({ version: 'preview1', args: ['asyncfix-lsp', '--log-level', 'error'], env: {} });
  const imports = {
    ...wasi.wasiImport,
    fd_read(fd, iovs, iovsLen, nread) {
      if (fd !== 0) return 8; // EBADF
      const v = view();
      const bytes = new Uint8Array(instance.exports.memory.buffer);
      let total = 0;
      for (let i = 0; i < iovsLen && frame < frames.length; i++) {
        const input = frames[frame];
        const base = v.getUint32(iovs + 8 * i, true);
        const n = Math.min(v.getUint32(iovs + 8 * i + 4, true), input.length - at);
        bytes.set(input.subarray(at, at + n), base);
        at += n;
        total += n;
        if (at === input.length) {
          ++frame;
          at = 0;
          idleOwed = true;
          break;
        }
      }
      v.setUint32(nread, total, true);
      return 0;
    },
    fd_write(fd, iovs, iovsLen, nwritten) { // dropped, or kept for the test (report)
      const v = view();
      let total = 0;
      for (let i = 0; i < iovsLen; i++) {
        const length = v.getUint32(iovs + 8 * i + 4, true);
        if (workerData.report && (fd === 1 || fd === 2))
          written[fd].push(Buffer.from(new Uint8Array(instance.exports.memory.buffer, v.getUint32(iovs + 8 * i, true), length))); // a copy
        total += length;
      }
      v.setUint32(nwritten, total, true);
      return 0;
    },
    // node:wasi's would end the whole process, and its returnOnExit unwinds the module's stack by
    // a JavaScript exception (see asyncfix-lsp.js): process.exit() ends this thread alone.
    proc_exit(code) {
      if (workerData.report)
        parentPort.postMessage({ code, output: Buffer.concat(written[1]).toString(), log: Buffer.concat(written[2]).toString() });
      process.exit(code);
    },
    poll_oneoff(inPtr, outPtr, nsubscriptions, neventsPtr) {
      const v = view();
      let clock = -1;
      let read = -1;
      for (let i = 0; i < nsubscriptions; i++) {
        const sub = inPtr + 48 * i;
        if (v.getUint8(sub + 8) === 0) clock = i;
        else if (v.getUint8(sub + 8) === 1 && v.getUint32(sub + 16, true) === 0) read = i;
      }
      const waits = clock < 0 || v.getBigUint64(inPtr + 48 * clock + 24, true) > 0n;
      const ready = read >= 0 && (waits || !idleOwed);
      if (!waits) idleOwed = false;
      const event = ready ? read : clock;
      if (event < 0) {
        v.setUint32(neventsPtr, 0, true);
        return 0;
      }
      const sub = inPtr + 48 * event;
      v.setBigUint64(outPtr, v.getBigUint64(sub, true), true);
      v.setUint16(outPtr + 8, 0, true);
      v.setUint8(outPtr + 10, v.getUint8(sub + 8));
      v.setBigUint64(outPtr + 16, 0n, true);
      v.setUint16(outPtr + 24, ready && frame >= frames.length ? 1 : 0, true);
      v.setUint32(neventsPtr, 1, true);
      return 0;
    },
  };
  instance = new WebAssembly.Instance(workerData.module, { wasi_snapshot_preview1: imports });
  wasi.start(instance);
}

/**
 * Starts the warm-up of `module` (a WebAssembly.Module of the server) on a worker thread. `report`
 * (tests/wasm) is called at the end with the server's exit code and what it wrote.
 */
function warmUp(module, report = null) {
  const worker = new Worker(__filename, {
    workerData: { asyncfixWarmUp: true, module, report: !!report },
    stdout: true,
    stderr: true,
  });
  worker.unref(); // the server's exit ends the process, warm or not
  worker.on('error', () => {}); // a warm-up that failed only leaves the server cold
  if (report) worker.on('message', report);
  return worker;
}

if (!isMainThread && workerData && workerData.asyncfixWarmUp) serve();

module.exports = { warmUp, session };
