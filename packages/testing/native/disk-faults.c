/*
 * A full or failing disk under one process, switched from outside (packages/testing
 * src/disk-faults.ts; issue 21), preloaded with LD_PRELOAD. It fails the calls that write
 * or sync a file: pwrite, pwritev, fsync, fdatasync, ftruncate and their 64-bit names (the
 * calls libfiu's preload failed, no more), and with PLATFORM_DISK_FAULTS_FILE_WRITES=1
 * plain write and writev on regular files.
 *
 * Why not libfiu's fiu_posix_preload.so (fiu-run -x), which it replaces: that library
 * routes every wrapped POSIX call (read, write, close, dup2...) through fiu_fail(), which
 * takes pthread rwlocks (its enabled-points lock and its lookup cache's lock, written on a
 * cache miss). Such locks are neither fork-safe nor async-signal-safe, and a Node service
 * that spawns ffmpeg or chromium hangs on them (the render harness's fork hang,
 * services/render README): a fork while another thread holds the write lock gives a child
 * that waits forever on its copy before its exec, and Node's spawn waits for that exec;
 * and libuv's SIGCHLD handler writes its signal pipe (a wrapped write) while holding
 * libuv's signal lock, so two children ending at once deadlock two threads (seen with gdb:
 * one thread in fiu_fail's rdlock interrupted by SIGCHLD, waiting for libuv's signal lock;
 * the other in the handler holding it, waiting for the cache's wrlock).
 *
 * Here a wrapper takes no lock and makes no call but the real one: each point reads its
 * errno (0: off) from one byte of the file <PLATFORM_DISK_FAULTS_DIR>/<pid>, mapped shared
 * at start-up (before any thread exists), which the test writes. The real functions are
 * looked up then too (dlsym is not async-signal-safe). PLATFORM_DISK_FAULTS_START (an
 * errno) starts a new file with every point on; it is removed from the environment here,
 * so a child (ffmpeg) starts with its own file, off, and is never switched. sh -c's exec
 * keeps the pid and the file.
 *
 * With ENOSPC the first plain write that meets the full disk is short (half of it reaches
 * the file, as when the last free blocks run out mid-write) and every later one fails,
 * until the point is off; with any other errno (EIO) every write fails whole.
 *
 * The slot order is SWITCH_POINTS in disk-faults.ts; keep the two lists equal.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { PWRITE, PWRITEV, FSYNC, FDATASYNC, FTRUNCATE, FILE_WRITE, SLOTS };

static volatile unsigned char *slots;
static int file_writes;

/* The errno a point fails with now, 0 when it is off. */
static int failing(int point) {
	return slots ? __atomic_load_n(&slots[point], __ATOMIC_RELAXED) : 0;
}

#define REAL(name) static __typeof__(name) *real_##name
REAL(pwrite);
REAL(pwrite64);
REAL(pwritev);
REAL(pwritev64);
REAL(fsync);
REAL(fdatasync);
REAL(ftruncate);
REAL(ftruncate64);
REAL(write);
REAL(writev);
#define FIND(name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static void open_switch(void) {
	const char *dir = getenv("PLATFORM_DISK_FAULTS_DIR");
	const char *start = getenv("PLATFORM_DISK_FAULTS_START");
	int start_errno = start ? atoi(start) : 0;
	unsetenv("PLATFORM_DISK_FAULTS_START");
	const char *writes = getenv("PLATFORM_DISK_FAULTS_FILE_WRITES");
	file_writes = writes && strcmp(writes, "1") == 0;
	if (!dir || !*dir) return;
	char path[4096];
	snprintf(path, sizeof path, "%s/%d", dir, (int)getpid());
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) return;
	struct stat st;
	if (syscall(SYS_fstat, fd, &st) == 0) {
		int whole = 1;
		if ((size_t)st.st_size < SLOTS) {
			unsigned char initial[SLOTS];
			memset(initial, st.st_size == 0 ? start_errno : 0, SLOTS);
			long missing = SLOTS - (long)st.st_size;
			whole = syscall(SYS_pwrite64, fd, initial + st.st_size, missing, (off_t)st.st_size) ==
				missing;
		}
		if (whole) {
			void *map = (void *)syscall(SYS_mmap, NULL, SLOTS, PROT_READ, MAP_SHARED, fd, 0);
			if (map != MAP_FAILED) slots = map;
		}
	}
	syscall(SYS_close, fd);
}

static void __attribute__((constructor)) start_up(void) {
	FIND(pwrite);
	FIND(pwrite64);
	FIND(pwritev);
	FIND(pwritev64);
	FIND(fsync);
	FIND(fdatasync);
	FIND(ftruncate);
	FIND(ftruncate64);
	FIND(write);
	FIND(writev);
	open_switch();
}

#define FAIL_IF(point)                          \
	do {                                    \
		int errnum_ = failing(point);   \
		if (errnum_) {                  \
			errno = errnum_;        \
			return -1;              \
		}                               \
	} while (0)

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
	FAIL_IF(PWRITE);
	if (!real_pwrite) FIND(pwrite);
	return real_pwrite(fd, buf, count, offset);
}
ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset) {
	FAIL_IF(PWRITE);
	if (!real_pwrite64) FIND(pwrite64);
	return real_pwrite64(fd, buf, count, offset);
}
ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
	FAIL_IF(PWRITEV);
	if (!real_pwritev) FIND(pwritev);
	return real_pwritev(fd, iov, iovcnt, offset);
}
ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt, off64_t offset) {
	FAIL_IF(PWRITEV);
	if (!real_pwritev64) FIND(pwritev64);
	return real_pwritev64(fd, iov, iovcnt, offset);
}
int fsync(int fd) {
	FAIL_IF(FSYNC);
	if (!real_fsync) FIND(fsync);
	return real_fsync(fd);
}
int fdatasync(int fd) {
	FAIL_IF(FDATASYNC);
	if (!real_fdatasync) FIND(fdatasync);
	return real_fdatasync(fd);
}
int ftruncate(int fd, off_t length) {
	FAIL_IF(FTRUNCATE);
	if (!real_ftruncate) FIND(ftruncate);
	return real_ftruncate(fd, length);
}
int ftruncate64(int fd, off64_t length) {
	FAIL_IF(FTRUNCATE);
	if (!real_ftruncate64) FIND(ftruncate64);
	return real_ftruncate64(fd, length);
}

static int full;

/* 0: write normally; -1: fail with errno set; 1: write short (`count` / 2). */
static int decide(int fd, size_t count) {
	if (!file_writes) return 0;
	int errnum = failing(FILE_WRITE);
	if (!errnum) {
		__atomic_store_n(&full, 0, __ATOMIC_RELAXED);
		return 0;
	}
	struct stat st;
	if (syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
	if (errnum == ENOSPC && count > 1 && !__atomic_exchange_n(&full, 1, __ATOMIC_RELAXED))
		return 1;
	errno = errnum;
	return -1;
}

ssize_t write(int fd, const void *buf, size_t count) {
	/* Found at start-up; before it (another library's constructor) found here. */
	if (!real_write) FIND(write);
	int decision = decide(fd, count);
	if (decision < 0) return -1;
	return real_write(fd, buf, decision > 0 ? count / 2 : count);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
	if (!real_writev) FIND(writev);
	if (!real_write) FIND(write);
	size_t count = 0;
	for (int i = 0; i < iovcnt; i++) count += iov[i].iov_len;
	int decision = decide(fd, count);
	if (decision < 0) return -1;
	if (decision > 0 && iovcnt > 0)
		return real_write(fd, iov[0].iov_base, iov[0].iov_len / 2 > 0 ? iov[0].iov_len / 2 : iov[0].iov_len);
	return real_writev(fd, iov, iovcnt);
}
