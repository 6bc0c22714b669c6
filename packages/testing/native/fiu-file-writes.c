/*
 * Plain write() and writev() failing on regular files only, switched by the libfiu fault
 * point "platform/file/write" (packages/testing src/disk-faults.ts; issue 21).
 *
 * fiu's own posix/io/rw/write point fails every write(): sockets and pipes too, which cuts
 * a service's HTTP answers and its engine connections (a dead process, not a full disk).
 * A full disk fails only files, and Node appends to a file with plain write() (a write
 * without a position), which fiu's positioned points do not cover. Preloaded before
 * fiu_posix_preload.so under fiu-run -x; the point's failinfo is the errno.
 *
 * With ENOSPC the first write that meets the full disk is short (half of it reaches the
 * file, as when the last free blocks run out mid-write) and every later one fails, until
 * the point is disabled; with any other errno (EIO) every write fails whole.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

int fiu_fail(const char *name);
void *fiu_failinfo(void);

static int full;

/* 0: write normally; -1: fail with errno set; 1: write short (`count` / 2). */
static int decide(int fd, size_t count) {
	struct stat st;
	if (!fiu_fail("platform/file/write")) {
		__atomic_store_n(&full, 0, __ATOMIC_RELAXED);
		return 0;
	}
	int errnum = (int)(intptr_t)fiu_failinfo();
	if (errnum == 0) errnum = ENOSPC;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
	if (errnum == ENOSPC && count > 1 && !__atomic_exchange_n(&full, 1, __ATOMIC_RELAXED))
		return 1;
	errno = errnum;
	return -1;
}

ssize_t write(int fd, const void *buf, size_t count) {
	static ssize_t (*next)(int, const void *, size_t);
	if (!next) next = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	int decision = decide(fd, count);
	if (decision < 0) return -1;
	return next(fd, buf, decision > 0 ? count / 2 : count);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
	static ssize_t (*next)(int, const struct iovec *, int);
	if (!next) next = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	size_t count = 0;
	for (int i = 0; i < iovcnt; i++) count += iov[i].iov_len;
	int decision = decide(fd, count);
	if (decision < 0) return -1;
	if (decision > 0 && iovcnt > 0) {
		static ssize_t (*one)(int, const void *, size_t);
		if (!one) one = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
		return one(fd, iov[0].iov_base, iov[0].iov_len / 2 > 0 ? iov[0].iov_len / 2 : iov[0].iov_len);
	}
	return next(fd, iov, iovcnt);
}
