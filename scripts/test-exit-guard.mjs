// Loaded by `scripts/run-tests.mjs` into every test file's process. Node 20's runner
// counts a file whose process exits 0 as passed, even when `process.exit(0)` cut it
// short and its remaining tests never ran: such an exit is turned into a failure.
const exit = process.exit;
let calledWith;
process.exit = function guardedExit(code) {
  calledWith = code ?? process.exitCode ?? 0;
  return exit.call(process, code);
};
process.on('exit', (code) => {
  if (calledWith === undefined || code !== 0) return;
  process.stderr.write(
    `\nrun-tests: ${process.argv[1]} called process.exit(0) while its tests ran; ` +
      'the tests after that point did NOT run.\n\n',
  );
  process.exitCode = 1;
});
