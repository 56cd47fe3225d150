/*
 * The C baseline of `firstcall --cache cold`: one way to bring a whole file in, in a fresh process, timed from the
 * open to the last byte, with nothing of the library or a runtime in it. The bench compiles this file at run time
 * (cc -O2 -pthread) and runs it once per sample, interleaved with the .NET hosts; it is never committed as a binary.
 *
 *   reader MODE FILE [WINDOW_BYTES]
 *
 * populate      mmap, MADV_HUGEPAGE, then MADV_POPULATE_READ on 2 threads, 32 MiB chunks from one counter
 * direct        O_DIRECT, 2 threads with one 32 MiB read each in flight into reused, pre-faulted buffers backed by
 *               2 MiB pages (allocated before the clock starts, as the bench's limit-direct rows do)
 * map-populate  mmap(MAP_POPULATE) on one thread: the kernel faults the whole mapping in before mmap returns
 *               (how llama.cpp loads without --no-mmap)
 * willneed      mmap, no huge-page advice (the page cache's own, 4 KiB folios), then 2 threads take 32 MiB chunks
 *               from one counter, ask for each in MADV_WILLNEED windows of WINDOW_BYTES (one call reads at most one
 *               window: force_page_cache_ra), then MADV_POPULATE_READ the chunk
 *
 * Prints one line: reader mode=... load_ms=... cpu_ms=... threads=... bytes=... method=...
 * Exit 0 on success, 1 with a message on stderr otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

#define CHUNK (32L << 20)
#define THREADS 2
#define HUGE_PAGE (2L << 20)

static const char *g_path;
static int g_fd = -1;
static char *g_map;
static size_t g_length;
static size_t g_window;
static atomic_long g_next;
static atomic_int g_failed;
static char *g_buffers[THREADS];

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

static void fail(const char *what, int error)
{
    if (atomic_exchange(&g_failed, 1) == 0)
    {
        fprintf(stderr, "reader: %s of '%s' failed: %s\n", what, g_path, strerror(error));
    }
}

/* The next chunk's offset, or -1 when the file is done. */
static long next_chunk(void)
{
    long at = atomic_fetch_add(&g_next, CHUNK);
    return at < (long)g_length ? at : -1;
}

static void *populate_worker(void *arg)
{
    (void)arg;
    for (long at; (at = next_chunk()) >= 0 && !atomic_load(&g_failed);)
    {
        size_t length = g_length - at < (size_t)CHUNK ? g_length - at : (size_t)CHUNK;
        if (madvise(g_map + at, length, MADV_POPULATE_READ) != 0)
        {
            fail("MADV_POPULATE_READ", errno);
        }
    }

    return NULL;
}

static void *willneed_worker(void *arg)
{
    (void)arg;
    for (long at; (at = next_chunk()) >= 0 && !atomic_load(&g_failed);)
    {
        size_t length = g_length - at < (size_t)CHUNK ? g_length - at : (size_t)CHUNK;
        for (size_t piece = 0; piece < length; piece += g_window)
        {
            size_t size = length - piece < g_window ? length - piece : g_window;
            (void)madvise(g_map + at + piece, size, MADV_WILLNEED); /* a hint: the populate reads what it left */
        }

        if (madvise(g_map + at, length, MADV_POPULATE_READ) != 0)
        {
            fail("MADV_POPULATE_READ", errno);
        }
    }

    return NULL;
}

static void *direct_worker(void *arg)
{
    char *buffer = g_buffers[(long)arg];
    for (long at; (at = next_chunk()) >= 0 && !atomic_load(&g_failed);)
    {
        size_t want = g_length - at < (size_t)CHUNK ? g_length - at : (size_t)CHUNK;
        size_t aligned = (want + 4095) & ~(size_t)4095; /* O_DIRECT lengths are block multiples; pread stops at the end */
        size_t done = 0;
        while (done < want)
        {
            ssize_t n = pread(g_fd, buffer + done, aligned - done, at + (long)done);
            if (n < 0 && errno == EINTR)
            {
                continue;
            }

            if (n <= 0)
            {
                fail("pread", n < 0 ? errno : EIO);
                break;
            }

            done += (size_t)n;
        }
    }

    return NULL;
}

static int run_threads(void *(*worker)(void *))
{
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
    {
        int error = pthread_create(&threads[i], NULL, worker, (void *)i);
        if (error != 0)
        {
            fail("pthread_create", error);
            for (long j = 0; j < i; j++)
            {
                pthread_join(threads[j], NULL);
            }

            return THREADS;
        }
    }

    for (int i = 0; i < THREADS; i++)
    {
        pthread_join(threads[i], NULL);
    }

    return THREADS;
}

static int map_file(int extra_flags)
{
    g_map = mmap(NULL, g_length, PROT_READ, MAP_SHARED | extra_flags, g_fd, 0);
    if (g_map == MAP_FAILED)
    {
        fail("mmap", errno);
        return -1;
    }

    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
    {
        fprintf(stderr, "usage: reader populate|direct|map-populate|willneed FILE [WINDOW_BYTES]\n");
        return 2;
    }

    const char *mode = argv[1];
    g_path = argv[2];
    g_window = argc > 3 ? strtoul(argv[3], NULL, 10) : 128 * 1024;
    if (g_window < 4096)
    {
        g_window = 4096;
    }

    struct stat st;
    if (stat(g_path, &st) != 0)
    {
        fail("stat", errno);
        return 1;
    }

    g_length = (size_t)st.st_size;
    char method[160] = "";
    int threads = 1;

    if (strcmp(mode, "direct") == 0)
    {
        /* The reader's own memory, faulted in before the clock: what an engine reads into exists before it loads. */
        for (int i = 0; i < THREADS; i++)
        {
            if (posix_memalign((void **)&g_buffers[i], HUGE_PAGE, CHUNK) != 0)
            {
                fail("posix_memalign", ENOMEM);
                return 1;
            }

            (void)madvise(g_buffers[i], CHUNK, MADV_HUGEPAGE);
            memset(g_buffers[i], 1, CHUNK);
        }
    }
    else if (strcmp(mode, "populate") != 0 && strcmp(mode, "map-populate") != 0 && strcmp(mode, "willneed") != 0)
    {
        fprintf(stderr, "reader: unknown mode '%s'\n", mode);
        return 2;
    }

    double cpu_before = cpu_ms();
    double started = now_ms();
    if (strcmp(mode, "direct") == 0)
    {
        g_fd = open(g_path, O_RDONLY | O_CLOEXEC | O_DIRECT);
        if (g_fd >= 0)
        {
            snprintf(method, sizeof method, "O_DIRECT, %d x 32 MiB in flight", THREADS);
        }
        else
        {
            int error = errno;
            g_fd = open(g_path, O_RDONLY | O_CLOEXEC);
            snprintf(method, sizeof method, "buffered (O_DIRECT refused: %s), %d x 32 MiB", strerror(error), THREADS);
        }
    }
    else
    {
        g_fd = open(g_path, O_RDONLY | O_CLOEXEC);
    }

    if (g_fd < 0)
    {
        fail("open", errno);
        return 1;
    }

    if (strcmp(mode, "direct") == 0)
    {
        threads = run_threads(direct_worker);
    }
    else if (strcmp(mode, "map-populate") == 0)
    {
        if (map_file(MAP_POPULATE) != 0)
        {
            return 1;
        }

        snprintf(method, sizeof method, "mmap(MAP_POPULATE), 1 thread");
    }
    else if (map_file(0) == 0)
    {
        if (strcmp(mode, "populate") == 0)
        {
            int advised = madvise(g_map, g_length, MADV_HUGEPAGE) == 0;
            threads = run_threads(populate_worker);
            snprintf(method, sizeof method, "%sMADV_POPULATE_READ, %d threads x 32 MiB chunks", advised ? "MADV_HUGEPAGE, " : "", THREADS);
        }
        else
        {
            threads = run_threads(willneed_worker);
            snprintf(method, sizeof method, "MADV_WILLNEED in %zu KiB windows, MADV_POPULATE_READ, %d threads x 32 MiB chunks", g_window / 1024, THREADS);
        }
    }
    else
    {
        return 1;
    }

    double load = now_ms() - started;
    double cpu = cpu_ms() - cpu_before;
    if (atomic_load(&g_failed))
    {
        return 1;
    }

    printf("reader mode=%s load_ms=%.3f cpu_ms=%.3f threads=%d bytes=%zu method=%s\n", mode, load, cpu, threads, g_length, method);
    return 0;
}
