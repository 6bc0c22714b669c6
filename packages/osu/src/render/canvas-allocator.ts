/**
 * Settings for the allocator inside @napi-rs/canvas (mimalloc), set before the library
 * loads: mimalloc reads its environment once, when the shared library is opened.
 *
 * Each frame's readback (`canvas.data()`) is a fresh 8 MB block at 1080p (33 MB at
 * 4k). By default mimalloc gives a freed block's pages back to the kernel after 10 ms,
 * which is shorter than a frame under load, so every frame's block was faulted in
 * again as zeroed (huge) pages: ~15% of the node process's CPU in the kernel's
 * clear_page (perf). Kept for a second instead, the next frame reuses the pages
 * (faults a frame ~100 -> ~1; README, Benchmarks), and an idle process still returns
 * them. The environment's own value wins. Imported first by each entry point (the
 * package's index and the CLI); a module that loads the canvas library before it
 * leaves mimalloc's 10 ms.
 */
process.env.MIMALLOC_PURGE_DELAY ??= '1000';
