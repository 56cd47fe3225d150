/*
 * What a first pass over memory costs against later ones, with nothing of the library in it: how much of a first
 * request's "x warm" a prefault could remove at all. Each iteration times the same sum of every 8-byte word four
 * times over seven kinds of memory, and keeps the first pass over the median of the other three, as the bench's
 * "x warm" divides a first request by the median of three warm runs. The sum runs on one thread, or with --threads N
 * on N threads that take 2 MiB chunks in turn from one atomic counter, as the bench's first request takes its chunks
 * (on --first-pass-threads, one per core by default: two on the development VM):
 *
 *   anon, CPU-written        anonymous memory (MADV_HUGEPAGE) after a memset: no fault is left, and no device wrote it
 *   anon, O_DIRECT-written   the same buffer after O_DIRECT reads of FILE into it (32 MiB each): no fault is left
 *   mmap, cold, populated    FILE evicted (POSIX_FADV_DONTNEED), mapped, MADV_HUGEPAGE, MADV_POPULATE_READ
 *   mmap, warm, populated    FILE still cached, mapped again, MADV_HUGEPAGE, MADV_POPULATE_READ
 *   mmap, cold 4k, populated FILE evicted, mapped, MADV_POPULATE_READ without the advice (4 KiB folios)
 *   anon, O_DIRECT, pages    as "anon, O_DIRECT-written", then one byte of every 4 KiB page read before the passes
 *   mmap, cold, pages        as "mmap, cold, populated", then one byte of every 4 KiB page read before the passes
 *   mmap, cold, pwritev      as "mmap, cold, populated", then one byte of every 4 KiB page written into a memfd by
 *                            pwritev (one call per 2 MiB span): the kernel's copy-from-user through the mapping
 *   mmap, cold, pwrite span  as "mmap, cold, populated", then each 2 MiB span written whole into a memfd by pwrite
 *
 * The "pages" kinds ask how much of the first pass's excess a prefault that reads a byte of every page (as
 * prefault-touch does, through the kernel) could take off the request: what a first access costs per page is paid
 * by that read (on one thread, untimed except for the cold file's), what it costs per cache line is not. The two
 * memfd kinds ask the same of a touch that cannot raise SIGBUS (a page past a truncated end is EFAULT): whether the
 * kernel's access through the mapping pays what the engine's first access would.
 *
 * After ITERATIONS it prints, per kind, the median, lowest and highest ratio and how many iterations went over
 * 1.05, then the medians of the later passes over the CPU-written memory and of the page reads of the cold file.
 * With --back it first faults in and frees the free memory (less a reserve), as the bench does after suspending
 * free page reporting, so blocks a host took back before are the VM's again. bench/first-touch/run.sh builds it,
 * and runs it on one thread and on two, as the machine is and, where it may, with free page reporting suspended.
 *
 *   first-touch FILE [ITERATIONS] [--back] [--threads N]
 *
 * FILE should be much larger than the processor's last-level cache (run.sh makes 1 GiB): over a file of tens of MiB
 * the caches, not the memory, decide the ratios.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

enum { KINDS = 9, MAX_ITERATIONS = 100, MAX_THREADS = 64, CHUNK = 2 << 20 };
static const char *const kind_names[KINDS] = {
    "anon, CPU-written",        "anon, O_DIRECT-written", "mmap, cold, populated", "mmap, warm, populated",
    "mmap, cold 4k, populated", "anon, O_DIRECT, pages",  "mmap, cold, pages",
    "mmap, cold, pwritev",      "mmap, cold, pwrite span",
};
static double ratios[KINDS][MAX_ITERATIONS], later_seconds[MAX_ITERATIONS], page_read_seconds[MAX_ITERATIONS];
static double pwritev_seconds[MAX_ITERATIONS], pwrite_span_seconds[MAX_ITERATIONS];
static int memfd = -1;
static volatile uint64_t sink;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *values, int count)
{
    qsort(values, count, sizeof(double), by_value);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int threads = 1;

struct pass
{
    const uint64_t *words;
    size_t chunks;
    atomic_size_t next;
};

static void *sum_chunks(void *arg)
{
    struct pass *pass = arg;
    uint64_t s = 0;
    for (size_t c = atomic_fetch_add(&pass->next, 1); c < pass->chunks; c = atomic_fetch_add(&pass->next, 1))
    {
        const uint64_t *w = pass->words + c * (CHUNK / 8);
        for (size_t i = 0; i < CHUNK / 8; i++)
            s += w[i];
    }
    return (void *)(uintptr_t)s;
}

static double sum_seconds(const void *p, size_t bytes)
{
    struct pass pass = {.words = p, .chunks = bytes / CHUNK};
    atomic_init(&pass.next, 0);
    pthread_t workers[MAX_THREADS];
    double started = now();
    for (int t = 1; t < threads; t++)
        if (pthread_create(&workers[t], NULL, sum_chunks, &pass) != 0)
        {
            perror("first-touch: pthread_create");
            exit(1);
        }
    uint64_t s = (uintptr_t)sum_chunks(&pass);
    for (int t = 1; t < threads; t++)
    {
        void *r;
        pthread_join(workers[t], &r);
        s += (uintptr_t)r;
    }
    sink += s;
    return now() - started;
}

/* The first pass over the median of three more; the median goes to *later_median when it is not NULL. */
static double first_over_later(const void *p, size_t bytes, double *later_median)
{
    double first = sum_seconds(p, bytes), later[3];
    for (int i = 0; i < 3; i++)
        later[i] = sum_seconds(p, bytes);
    double median = median_of(later, 3);
    if (later_median)
        *later_median = median;
    return first / median;
}

/* Reads one byte of every 4 KiB page on this thread; returns the seconds it took. */
static double read_pages(const void *p, size_t bytes)
{
    const volatile uint8_t *b = p;
    uint64_t s = 0;
    double started = now();
    for (size_t o = 0; o < bytes; o += 4096)
        s += b[o];
    sink += s;
    return now() - started;
}

/* Writes one byte of every 4 KiB page into the memfd, a pwritev per 2 MiB span; returns the seconds it took. */
static double pwritev_pages(const void *p, size_t bytes)
{
    static struct iovec iov[CHUNK / 4096];
    double started = now();
    for (size_t o = 0; o < bytes; o += CHUNK)
    {
        int n = 0;
        for (size_t q = 0; q < CHUNK; q += 4096, n++)
        {
            iov[n].iov_base = (char *)p + o + q;
            iov[n].iov_len = 1;
        }
        if (pwritev(memfd, iov, n, 0) != n)
        {
            perror("first-touch: pwritev");
            exit(1);
        }
    }
    return now() - started;
}

/* Writes each 2 MiB span whole into the memfd; returns the seconds it took. */
static double pwrite_spans(const void *p, size_t bytes)
{
    double started = now();
    for (size_t o = 0; o < bytes; o += CHUNK)
        if (pwrite(memfd, (const char *)p + o, CHUNK, 0) != CHUNK)
        {
            perror("first-touch: pwrite");
            exit(1);
        }
    return now() - started;
}

static void read_direct(int direct, char *buffer, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += 32 << 20)
        if (pread(direct, buffer + o, 32 << 20, (off_t)o) != 32 << 20)
        {
            perror("first-touch: O_DIRECT read");
            exit(1);
        }
}


static void *map_file(int fd, size_t bytes, int huge)
{
    void *m = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
    {
        perror("first-touch: mmap");
        exit(1);
    }
    if (huge)
        madvise(m, bytes, MADV_HUGEPAGE);
    if (madvise(m, bytes, MADV_POPULATE_READ) != 0)
    {
        perror("first-touch: MADV_POPULATE_READ");
        exit(1);
    }
    return m;
}

/* The file evicted, mapped afresh (huge pages advised), `fill` timed over the mapping into *fill_seconds, then the
   first pass over it against later ones; unmapped after. */
static double cold_mapped_pass(int fd, size_t bytes, double (*fill)(const void *, size_t), double *fill_seconds)
{
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    void *m = map_file(fd, bytes, 1);
    *fill_seconds = fill(m, bytes);
    double ratio = first_over_later(m, bytes, NULL);
    munmap(m, bytes);
    return ratio;
}

static void back_free_memory(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long free_kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemFree: %lld kB", &free_kib) == 1)
            break;
    if (f)
        fclose(f);
    long long bytes = free_kib * 1024, reserve = bytes / 16 > (512LL << 20) ? bytes / 16 : 512LL << 20;
    bytes = (bytes - reserve) / (2 << 20) * (2 << 20);
    if (bytes <= 0)
        return;
    double started = now();
    char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return;
    madvise(m, bytes, MADV_HUGEPAGE);
    for (long long o = 0; o < bytes; o += 64LL << 20)
        madvise(m + o, bytes - o < (64LL << 20) ? bytes - o : 64LL << 20, MADV_POPULATE_WRITE);
    munmap(m, bytes);
    printf("faulted in and freed %.1f GiB of free memory in %.1f s\n", bytes / 1073741824.0, now() - started);
}

int main(int argc, char **argv)
{
    const char *positional[2] = {NULL, NULL};
    int count = 0, back = 0;
    for (int a = 1; a < argc; a++)
    {
        if (strcmp(argv[a], "--back") == 0)
            back = 1;
        else if (strcmp(argv[a], "--threads") == 0)
        {
            char *end = NULL;
            long value = a + 1 < argc ? strtol(argv[a + 1], &end, 10) : 0;
            if (a + 1 >= argc || end == argv[a + 1] || *end != '\0' || value < 1 || value > MAX_THREADS)
            {
                fprintf(stderr, "first-touch: --threads needs a number from 1 to %d\n", MAX_THREADS);
                return 2;
            }
            threads = (int)value;
            a++;
        }
        else if (count < 2)
            positional[count++] = argv[a];
        else
            count = 3;
    }
    const char *path = positional[0];
    int iterations = positional[1] ? atoi(positional[1]) : 10;
    if (path == NULL || count > 2)
    {
        fprintf(stderr, "usage: first-touch FILE [ITERATIONS] [--back] [--threads N]\n");
        return 2;
    }
    if (iterations < 1 || iterations > MAX_ITERATIONS)
    {
        fprintf(stderr, "first-touch: ITERATIONS must be 1 to %d\n", MAX_ITERATIONS);
        return 2;
    }

    int fd = open(path, O_RDONLY), direct = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0 || direct < 0)
    {
        perror("first-touch: open");
        return 1;
    }
    size_t bytes = (size_t)lseek(fd, 0, SEEK_END) / (32 << 20) * (32 << 20);
    if (bytes == 0)
    {
        fprintf(stderr, "first-touch: FILE must hold at least 32 MiB\n");
        return 1;
    }
    memfd = memfd_create("first-touch", MFD_CLOEXEC);
    if (memfd < 0)
    {
        perror("first-touch: memfd_create");
        return 1;
    }
    if (back)
        back_free_memory();

    for (int i = 0; i < iterations; i++)
    {
        char *buffer = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buffer == MAP_FAILED)
        {
            perror("first-touch: mmap");
            return 1;
        }
        madvise(buffer, bytes, MADV_HUGEPAGE);
        memset(buffer, 1, bytes);
        ratios[0][i] = first_over_later(buffer, bytes, &later_seconds[i]);
        read_direct(direct, buffer, bytes);
        ratios[1][i] = first_over_later(buffer, bytes, NULL);
        read_direct(direct, buffer, bytes);
        read_pages(buffer, bytes);
        ratios[5][i] = first_over_later(buffer, bytes, NULL);
        munmap(buffer, bytes);

        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        void *m = map_file(fd, bytes, 1);
        ratios[2][i] = first_over_later(m, bytes, NULL);
        munmap(m, bytes);
        m = map_file(fd, bytes, 1);
        ratios[3][i] = first_over_later(m, bytes, NULL);
        munmap(m, bytes);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        m = map_file(fd, bytes, 0);
        ratios[4][i] = first_over_later(m, bytes, NULL);
        munmap(m, bytes);
        ratios[6][i] = cold_mapped_pass(fd, bytes, read_pages, &page_read_seconds[i]);
        ratios[7][i] = cold_mapped_pass(fd, bytes, pwritev_pages, &pwritev_seconds[i]);
        ratios[8][i] = cold_mapped_pass(fd, bytes, pwrite_spans, &pwrite_span_seconds[i]);
    }

    printf("first pass over the median of three later passes, %d iterations, %.2f GiB, %d thread%s:\n", iterations,
           bytes / 1073741824.0, threads, threads == 1 ? "" : "s");
    for (int k = 0; k < KINDS; k++)
    {
        int over = 0;
        for (int i = 0; i < iterations; i++)
            over += ratios[k][i] > 1.05;
        double median = median_of(ratios[k], iterations);
        printf("  %-26s median %.3fx (%.3fx-%.3fx), over 1.05x in %d of %d\n", kind_names[k], median, ratios[k][0],
               ratios[k][iterations - 1], over, iterations);
    }
    printf("  medians: a later pass over the CPU-written memory %.1f ms; reading a byte of every page of the cold file"
           " (one thread) %.1f ms\n",
           median_of(later_seconds, iterations) * 1e3, median_of(page_read_seconds, iterations) * 1e3);
    printf("  medians of the memfd touches of the cold file (one thread): pwritev a byte a page %.1f ms, pwrite whole"
           " spans %.1f ms\n",
           median_of(pwritev_seconds, iterations) * 1e3, median_of(pwrite_span_seconds, iterations) * 1e3);
    return 0;
}
