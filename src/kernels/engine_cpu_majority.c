/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cpu_majority.c - the majority (the most frequent code of each
 * window, ties to the smallest code) on the CPU, sliding.
 *
 * Each output row slides one histogram left to right, as the entropy's
 * does, and keeps beside it how many codes hold each count (`fc`), so the
 * largest count `maxc` is known exactly after every update. The window's
 * mode (the smallest code of count maxc) survives every update but one:
 * a code entering can only take its place (a larger count, or the same
 * count and a smaller code), a code leaving that is not the mode leaves it
 * the mode. When the mode itself leaves, the mode is found again at the
 * next pixel by one pass over the window's pixels. The answer is the
 * argmax by definition, whatever the order of the updates: the bits of
 * the reference, on any band and thread split.
 *
 * The histogram counts the codes' keys in value order (winent_code_order:
 * the codes themselves but where a nodata rotated them), so that "the
 * smallest" is the smallest value. Where they index a histogram directly
 * (at most 65536 codes) the keys are used as they are; wider ones (32-bit
 * values, many bins) are first replaced by their rank among the band's
 * distinct keys, which keeps their order.
 *
 * Keys that fit a byte (8-bit data, up to 256 bins) on rectangular windows
 * take the column path instead (keys8_rows, as the entropy's column paths
 * of engine_cpu_cols.c): per band and strip of columns, each column's byte
 * histogram of its Ky window rows moves down one row per output row, and
 * along a row the window's counts move by the difference of the entering
 * and leaving columns, only in the bins where they differ (compared 8 at a
 * time). The mode is kept through those changes by the rule above (a bin
 * that grows can only take its place; only the mode shrinking loses it),
 * and found again, when lost, by one scan of the window's 64 or 256 counts
 * rather than of its pixels. The same argmax: the same bits.
 */
#include "engine_cpu_majority.h"
#include "engine_cpu_diffmask.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of column histograms per strip: inside a core's L2 (as the
 * entropy's column paths). */
#define KEYS8_STRIP_BYTES (512 * 1024)
#define KEYS8_STRIP_MIN 64

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

typedef struct mode_state {
    uint16_t *h; /* count of each code (rank) */
    int *fc;     /* fc[k]: codes holding count k */
    int maxc;    /* the largest count */
    uint32_t mode;
    int dirty;   /* the mode left: find it again before the next answer */
    int top;     /* the largest count seen in this row (to clear fc) */
} mode_state;

static inline void mode_add(mode_state *m, uint32_t v)
{
    const int c = m->h[v]++;
    m->fc[c]--;
    m->fc[c + 1]++;
    if (c + 1 > m->maxc) {
        m->maxc = c + 1;
        m->mode = v;
        m->dirty = 0;
        m->top = imax(m->top, c + 1);
    } else if (c + 1 == m->maxc && !m->dirty && v < m->mode) {
        m->mode = v;
    }
}

static inline void mode_remove(mode_state *m, uint32_t v)
{
    const int c = m->h[v]--;
    m->fc[c]--;
    m->fc[c - 1]++;
    if (c == m->maxc && m->fc[c] == 0)
        m->maxc--;
    if (v == m->mode)
        m->dirty = 1;
}

typedef struct maj_job {
    const winent_plan *p;
    const uint32_t *codes; /* input rows [oy, ...), W apart */
    int oy, W, H;
    const uint32_t *rank_code; /* ranks: the code of each, or NULL (codes direct) */
    int skip;                  /* WINENT_NODATA_CODE is not counted */
} maj_job;

static inline int inside(int c, int W)
{
    return (unsigned)c < (unsigned)W;
}

static inline const uint32_t *row_at(const maj_job *j, int y)
{
    return j->codes + (size_t)(y - j->oy) * (size_t)j->W;
}

/* Apply BODY to each run of the window's rows around row y inside the
 * image: r_ the row, a_ .. b_ the run's columns from x (a rectangle: one
 * run a row, -rx .. kx - 1 - rx; a disk or footprint: the plan's runs). */
#define WINDOW_ROWS(j, y, BODY)                                                                    \
    for (int dy_ = -(j)->p->ry; dy_ < (j)->p->ky - (j)->p->ry; dy_++) {                            \
        const int yy_ = (y) + dy_;                                                                 \
        if (yy_ < 0 || yy_ >= (j)->H)                                                              \
            continue;                                                                              \
        const uint32_t *r_ = row_at((j), yy_);                                                     \
        const winent_plan *p_ = (j)->p;                                                            \
        const int q0_ = p_->shaped ? p_->row_first[dy_ + p_->ry] : 0;                              \
        const int q1_ = p_->shaped ? p_->row_first[dy_ + p_->ry + 1] : 1;                          \
        for (int q_ = q0_; q_ < q1_; q_++) {                                                       \
            const int a_ = p_->shaped ? p_->row_run[2 * q_] : -p_->rx;                             \
            const int b_ = p_->shaped ? p_->row_run[2 * q_ + 1] : p_->kx - 1 - p_->rx;             \
            BODY                                                                                   \
        }                                                                                          \
    }

static void find_mode(const maj_job *j, mode_state *m, int x, int y)
{
    int found = 0;
    WINDOW_ROWS(j, y, {
        for (int xx = imax(0, x + a_); xx <= imin(j->W - 1, x + b_); xx++) {
            const uint32_t v = r_[xx];
            if (j->skip && v == WINENT_NODATA_CODE)
                continue;
            if (m->h[v] == m->maxc && (!found || v < m->mode)) {
                m->mode = v;
                found = 1;
            }
        }
    });
    m->dirty = 0;
}

static void majority_row(const maj_job *j, mode_state *m, int y, float *orow)
{
    const winent_plan *p = j->p;
    const int W = j->W;
    m->maxc = 0;
    m->dirty = 1;
    m->top = 0;
    WINDOW_ROWS(j, y, {
        for (int xx = imax(0, a_); xx <= imin(W - 1, b_); xx++)
            if (!(j->skip && r_[xx] == WINENT_NODATA_CODE))
                mode_add(m, r_[xx]);
    });
    const uint32_t *crow = row_at(j, y);
    for (int x = 0; x < W; x++) {
        if ((j->skip && crow[x] == WINENT_NODATA_CODE) || m->maxc == 0) {
            orow[x] = NAN; /* nodata, or a footprint without its centre counting nothing */
        } else {
            if (m->dirty)
                find_mode(j, m, x, y);
            const uint32_t key = j->rank_code ? j->rank_code[m->mode] : m->mode;
            orow[x] = winent_code_value(&p->rule, winent_order_code(&p->rule, key));
        }
        if (x + 1 >= W)
            break;
        WINDOW_ROWS(j, y, {
            if (inside(x + a_, W) && !(j->skip && r_[x + a_] == WINENT_NODATA_CODE))
                mode_remove(m, r_[x + a_]);
            if (inside(x + 1 + b_, W) && !(j->skip && r_[x + 1 + b_] == WINENT_NODATA_CODE))
                mode_add(m, r_[x + 1 + b_]);
        });
    }
    /* Leave the histogram and the count of counts zero. */
    WINDOW_ROWS(j, y, {
        for (int xx = imax(0, W - 1 + a_); xx <= imin(W - 1, W - 1 + b_); xx++)
            if (!(j->skip && r_[xx] == WINENT_NODATA_CODE))
                m->h[r_[xx]] = 0;
    });
    memset(m->fc, 0, sizeof *m->fc * (size_t)(m->top + 2));
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Replace the codes by the rank of their value order key
 * (winent_code_order) among the distinct ones (nodata kept); the ranks'
 * keys into *rank_code (owned by the caller). Returns the number of ranks,
 * or -1 when out of memory. */
static int64_t rank_codes(const winent_code_rule *r, uint32_t *codes, size_t n, int skip,
                          uint32_t **rank_code)
{
    uint32_t *u = malloc(sizeof *u * (n ? n : 1));
    if (u == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!(skip && codes[i] == WINENT_NODATA_CODE))
            u[k++] = winent_code_order(r, codes[i]);
    qsort(u, k, sizeof *u, cmp_u32);
    size_t d = 0;
    for (size_t i = 0; i < k; i++)
        if (d == 0 || u[i] != u[d - 1])
            u[d++] = u[i];
    for (size_t i = 0; i < n; i++) {
        if (skip && codes[i] == WINENT_NODATA_CODE)
            continue;
        const uint32_t key = winent_code_order(r, codes[i]);
        size_t lo = 0, hi = d;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (u[mid] <= key)
                lo = mid;
            else
                hi = mid;
        }
        codes[i] = (uint32_t)lo;
    }
    *rank_code = u;
    return (int64_t)d;
}

/* ---- The column path of byte keys ---------------------------------------- */

/* The key of no counted pixel, for nodata, where keys fit a byte: -1 when
 * no pixel can be nodata; 256 when the keys take all 256 bytes and a pixel
 * can be nodata (then the path is not for the plan). Keys are below *nkeys. */
static int keys8_sentinel(const winent_plan *p, int *nkeys)
{
    const winent_code_rule *r = &p->rule;
    const uint64_t k = r->rotate ? (uint64_t)r->rotate_mask + 1 : p->ncodes;
    *nkeys = k > 256 ? 257 : (int)k;
    if (!p->can_skip)
        return -1;
    if (r->rotate) {
        /* Codes rotated around the nodata value N: no counted pixel has N's
         * key (winent_code_order of its bit pattern). */
        const uint32_t v = (uint32_t)r->nodata_int & r->rotate_mask;
        const int is_signed = r->dtype == 1 || r->dtype == 3 || r->dtype == 5;
        return (int)(is_signed ? v ^ ((r->rotate_mask >> 1) + 1u) : v);
    }
    return (int)k; /* the first key past the codes' */
}

/* 1 when the plan's majority may take the column path of byte keys: a
 * rectangular window at most 255 rows high (byte column counts), keys in
 * a byte, and WINENT_CPU_PATH not "slide" (which keeps the sliding
 * histogram, for tests). A band holding nodata also needs a free key. */
static int keys8_takes(const winent_plan *p)
{
    int nkeys = 0;
    keys8_sentinel(p, &nkeys);
    const char *req = getenv("WINENT_CPU_PATH");
    if (req != NULL && !strcmp(req, "slide"))
        return 0;
    return !p->shaped && p->ky <= 255 && p->direct && nkeys <= 256;
}

typedef struct keys8_job keys8_job;

/* One strip row of the column path (keys8_sweep_*). */
typedef void (*keys8_sweep_fn)(const keys8_job *j, const uint8_t *col, uint16_t *win, int xs,
                               int xe, int y, float *o);

struct keys8_job {
    const uint8_t *keys; /* input rows [oy, ...), stride apart */
    size_t stride;
    int oy, W, H, rx, ry, sent, bins;
    const float *value; /* [256]: the value of each key */
    keys8_sweep_fn sweep;
    float *out;         /* output row y at out + (y - out_y0) * out_stride */
    size_t out_stride;
    int out_y0;
};

/* The window's mode from its counts (the sentinel's bin zeroed by the
 * caller): the smallest key of the largest count, into *maxc and *mode. */
static inline void keys8_scan_portable(const uint16_t *win, const int bins, int *maxc, int *mode)
{
    unsigned m = 0;
    for (int v = 0; v < bins; v++)
        m = win[v] > m ? win[v] : m;
    int at = 0;
    while (at < bins && win[at] != m)
        at++;
    *maxc = (int)m;
    *mode = at;
}

/* One strip row: the window of x = xs is the sum of strip columns
 * 0 .. 2 rx; each step moves it by one column, keeping the mode (found
 * again by SCAN where it shrank). DIFF(cin, cout, bins, m) marks the
 * changed bins. */
#define KEYS8_SWEEP_BODY(DIFF, SCAN)                                                               \
    do {                                                                                           \
        const int rx = j->rx, sent = j->sent;                                                      \
        memset(win, 0, (size_t)bins * sizeof *win);                                                \
        for (int d = 0; d <= 2 * rx; d++)                                                          \
            for (int v = 0; v < bins; v++)                                                         \
                win[v] = (uint16_t)(win[v] + col[(size_t)d * bins + v]);                           \
        int maxc = 0, mode = 0, dirty = 1;                                                         \
        const uint8_t *centre = j->keys + (size_t)(y - j->oy) * j->stride;                         \
        for (int x = xs;; x++) {                                                                   \
            if (sent >= 0 && centre[x] == sent) {                                                  \
                o[x - xs] = NAN;                                                                   \
            } else {                                                                               \
                if (dirty) {                                                                       \
                    const uint16_t keep = sent >= 0 ? win[sent] : 0;                               \
                    if (sent >= 0)                                                                 \
                        win[sent] = 0;                                                             \
                    SCAN(win, bins, &maxc, &mode);                                                 \
                    if (sent >= 0)                                                                 \
                        win[sent] = keep;                                                          \
                }                                                                                  \
                dirty = 0;                                                                         \
                o[x - xs] = j->value[mode];                                                        \
            }                                                                                      \
            if (x + 1 >= xe)                                                                       \
                break;                                                                             \
            const uint8_t *cin = col + (size_t)(x - xs + 2 * rx + 1) * bins;                       \
            const uint8_t *cout = col + (size_t)(x - xs) * bins;                                   \
            uint64_t m[4];                                                                         \
            DIFF(cin, cout, bins, m);                                                              \
            for (int w = 0; w < bins / 64; w++)                                                    \
                for (uint64_t b = m[w]; b; b &= b - 1) {                                           \
                    const int v = 64 * w + __builtin_ctzll(b);                                     \
                    const int c = win[v], n = c + cin[v] - cout[v];                                \
                    win[v] = (uint16_t)n;                                                          \
                    if (v == sent || dirty)                                                        \
                        continue;                                                                  \
                    if (n > maxc) { /* a bin that grows can only take the mode's place */          \
                        maxc = n;                                                                  \
                        mode = v;                                                                  \
                    } else if (n == maxc && n > c && v < mode) {                                   \
                        mode = v;                                                                  \
                    } else if (n < c && v == mode) { /* the mode shrinks: found again */           \
                        dirty = 1;                                                                 \
                    }                                                                              \
                }                                                                                  \
        }                                                                                          \
    } while (0)

static inline __attribute__((always_inline)) void
keys8_sweep_portable_bins(const keys8_job *j, const uint8_t *col, uint16_t *win, int xs, int xe,
                          int y, float *o, const int bins)
{
    KEYS8_SWEEP_BODY(winent_diff_mask_portable, keys8_scan_portable);
}

static void keys8_sweep_portable(const keys8_job *j, const uint8_t *col, uint16_t *win, int xs,
                                 int xe, int y, float *o)
{
    if (j->bins == 64)
        keys8_sweep_portable_bins(j, col, win, xs, xe, y, o, 64);
    else
        keys8_sweep_portable_bins(j, col, win, xs, xe, y, o, 256);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
#define KEYS8_X86 1
#define KEYS8_AVX2 "avx2,bmi"

/* keys8_scan_portable, 16 counts a compare. */
__attribute__((target(KEYS8_AVX2), always_inline)) static inline void
keys8_scan_avx2(const uint16_t *win, const int bins, int *maxc, int *mode)
{
    __m256i m = _mm256_loadu_si256((const __m256i *)win);
    for (int v = 16; v < bins; v += 16)
        m = _mm256_max_epu16(m, _mm256_loadu_si256((const __m256i *)(win + v)));
    m = _mm256_max_epu16(m, _mm256_permute2x128_si256(m, m, 1));
    m = _mm256_max_epu16(m, _mm256_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm256_max_epu16(m, _mm256_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
    m = _mm256_max_epu16(m, _mm256_srli_epi32(m, 16)); /* word 0 of each dword: the max */
    const int mx = _mm256_extract_epi16(m, 0);
    const __m256i b = _mm256_set1_epi16((short)mx);
    int at = 0;
    for (int v = 0; v < bins; v += 16) {
        const unsigned k = (unsigned)_mm256_movemask_epi8(
            _mm256_cmpeq_epi16(_mm256_loadu_si256((const __m256i *)(win + v)), b));
        if (k) {
            at = v + (int)__builtin_ctz(k) / 2;
            break;
        }
    }
    *maxc = mx;
    *mode = at;
}

__attribute__((target(KEYS8_AVX2), always_inline)) static inline void
keys8_sweep_avx2_bins(const keys8_job *j, const uint8_t *col, uint16_t *win, int xs, int xe,
                      int y, float *o, const int bins)
{
    KEYS8_SWEEP_BODY(winent_diff_mask_avx2, keys8_scan_avx2);
}

__attribute__((target(KEYS8_AVX2))) static void keys8_sweep_avx2(const keys8_job *j,
                                                                 const uint8_t *col, uint16_t *win,
                                                                 int xs, int xe, int y, float *o)
{
    if (j->bins == 64)
        keys8_sweep_avx2_bins(j, col, win, xs, xe, y, o, 64);
    else
        keys8_sweep_avx2_bins(j, col, win, xs, xe, y, o, 256);
}
#else
#define KEYS8_X86 0
#endif

/* The sweep for this CPU (WINENT_CPU_PATH=portable: the portable one). */
static keys8_sweep_fn keys8_sweep_choose(void)
{
#if KEYS8_X86
    __builtin_cpu_init();
    const char *req = getenv("WINENT_CPU_PATH");
    if (!(req != NULL && !strcmp(req, "portable")) && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("bmi"))
        return keys8_sweep_avx2;
#endif
    return keys8_sweep_portable;
}

/* Output rows [ya, yb) of the job, strips of columns, rows within a strip;
 * `col` holds (sw + 2 rx) columns of `bins` counts, `win` bins counts. */
static void keys8_rows(const keys8_job *j, int ya, int yb, int sw, uint8_t *col, uint16_t *win)
{
    const int W = j->W, H = j->H, rx = j->rx, ry = j->ry, bins = j->bins;
    for (int xs = 0; xs < W; xs += sw) {
        const int xe = imin(W, xs + sw);
        /* Image column c is strip column c - xs + rx; those outside stay 0. */
        const int ca = imax(0, xs - rx), cb = imin(W, xe + rx);
        uint8_t *c0 = col + (ptrdiff_t)(rx - xs) * bins; /* strip column of image column 0 */
        for (int y = ya; y < yb; y++) {
            if (y == ya) {
                memset(col, 0, (size_t)(xe - xs + 2 * rx) * (size_t)bins);
                for (int r = imax(0, y - ry); r <= imin(H - 1, y + ry); r++) {
                    const uint8_t *p = j->keys + (size_t)(r - j->oy) * j->stride;
                    for (int c = ca; c < cb; c++)
                        c0[(size_t)c * bins + p[c]]++;
                }
            } else {
                if (y - 1 - ry >= 0) {
                    const uint8_t *p = j->keys + (size_t)(y - 1 - ry - j->oy) * j->stride;
                    for (int c = ca; c < cb; c++)
                        c0[(size_t)c * bins + p[c]]--;
                }
                if (y + ry < H) {
                    const uint8_t *p = j->keys + (size_t)(y + ry - j->oy) * j->stride;
                    for (int c = ca; c < cb; c++)
                        c0[(size_t)c * bins + p[c]]++;
                }
            }
            j->sweep(j, col, win, xs, xe, y,
                        j->out + (size_t)(y - j->out_y0) * j->out_stride + xs);
        }
    }
}

/* The band's byte keys (`codes`, n of them, to `keys`), its sentinel
 * (-1: no pixel is nodata) and its largest key, the sentinel included;
 * 0 when a pixel is nodata and no key is free for it. */
static int keys8_make(const winent_plan *p, const uint32_t *codes, size_t n, uint8_t *keys,
                      int *sent, int *top)
{
    int nkeys = 0, seen = 0;
    const int free_key = keys8_sentinel(p, &nkeys);
    uint8_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (p->can_skip && codes[i] == WINENT_NODATA_CODE) {
            if (free_key < 0 || free_key > 255)
                return 0;
            seen = 1;
            keys[i] = (uint8_t)free_key;
        } else {
            keys[i] = (uint8_t)winent_code_order(&p->rule, codes[i]);
        }
        m = keys[i] > m ? keys[i] : m;
    }
    *sent = seen ? free_key : -1;
    *top = m;
    return 1;
}

/* The majority of rows [ya, yb) through the column path (keys8_takes);
 * the input rows' codes (`codes`, rows ra .. rb) become byte keys. Sets
 * *done_ to the bins of its column histograms, or to 0, writing nothing,
 * where the band holds nodata and every key is a value's. */
static winent_status keys8_majority(const winent_plan *p, const winent_chunk *c,
                                    const uint32_t *codes, int ra, int rb, int ya, int yb,
                                    float *out, size_t out_stride, int *done_, winent_err *err)
{
    const int W = c->width;
    int nkeys = 0, sent = -1, top = 0;
    keys8_sentinel(p, &nkeys);
    const size_t n = (size_t)W * (size_t)(rb - ra);
    /* u8 samples of distinct values where none is nodata: their own keys,
     * read in place (codes NULL). */
    const uint8_t *in_place = codes == NULL ? (const uint8_t *)c->rows +
                                                  (size_t)(ra - c->in_y0) * c->row_bytes
                                            : NULL;
    uint8_t *keys = in_place ? NULL : malloc(n ? n : 1);
    uint8_t *col = NULL;
    uint16_t *win = malloc(sizeof *win * 256);
    float *value = malloc(sizeof *value * 256);
    winent_status st = WINENT_OK;
    *done_ = 0;
    if ((keys == NULL && in_place == NULL) || win == NULL || value == NULL)
        goto nomem;
    if (in_place != NULL)
        for (int r = 0; r < rb - ra; r++)
            for (int x = 0; x < W; x++) /* vectorized: a max over bytes */
                top = in_place[(size_t)r * c->row_bytes + x] > top
                          ? in_place[(size_t)r * c->row_bytes + x]
                          : top;
    else if (!keys8_make(p, codes, n, keys, &sent, &top))
        goto done;
    /* The column histograms of the band's keys: 64 bins where they are
     * small (a quarter of the columns' bytes to move and compare). */
    const int bins = top < 64 ? 64 : 256;
    const int sw = imin(W, imax(KEYS8_STRIP_MIN, KEYS8_STRIP_BYTES / bins - 2 * p->rx));
    if ((col = malloc((size_t)(sw + 2 * p->rx) * (size_t)bins)) == NULL)
        goto nomem;
    *done_ = bins;
    for (int k = 0; k < 256; k++)
        value[k] = k < nkeys ? winent_code_value(&p->rule, winent_order_code(&p->rule, (uint32_t)k))
                             : NAN;
    const keys8_job j = {in_place ? in_place : keys,
                         in_place ? c->row_bytes : (size_t)W,
                         ra, W, c->height, p->rx, p->ry, sent, bins, value,
                         keys8_sweep_choose(), out, out_stride, c->y0};
    keys8_rows(&j, ya, yb, sw, col, win);
    goto done;
nomem:
    st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the CPU engine's majority");
done:
    free(keys);
    free(col);
    free(win);
    free(value);
    return st;
}

winent_status winent_cpu_majority_rows(const winent_plan *p, const winent_chunk *c, int ya, int yb,
                                       float *out, size_t out_stride, int *bins_taken,
                                       winent_err *err)
{
    const int W = c->width;
    *bins_taken = 0;
    if (yb <= ya || W == 0)
        return WINENT_OK;
    const int ra = imax(0, ya - p->ry), rb = imin(c->height, yb + p->ry);
    const size_t n = (size_t)W * (size_t)(rb - ra);
    if (keys8_takes(p) && p->opts.dtype == WINENT_U8 && !p->rule.quantize && !p->rule.rotate &&
        !p->can_skip && p->rule.int_offset == 0)
        return keys8_majority(p, c, NULL, ra, rb, ya, yb, out, out_stride, bins_taken, err);
    uint32_t *codes = malloc(sizeof *codes * n);
    uint32_t *rank_code = NULL;
    mode_state m = {NULL, NULL, 0, 0, 1, 0};
    winent_status st = WINENT_OK;
    if (codes == NULL)
        goto nomem;
    for (int r = ra; r < rb; r++)
        winent_plan_codes(p, (const char *)c->rows + (size_t)(r - c->in_y0) * c->row_bytes,
                          (size_t)W, codes + (size_t)(r - ra) * (size_t)W);
    if (keys8_takes(p)) {
        st = keys8_majority(p, c, codes, ra, rb, ya, yb, out, out_stride, bins_taken, err);
        if (st != WINENT_OK || *bins_taken) {
            free(codes);
            return st;
        }
    }
    maj_job j = {p, codes, ra, W, c->height, NULL, p->can_skip};
    /* Rotated codes' keys span the dtype's 2^bits patterns. */
    size_t bins = p->rule.rotate ? (size_t)p->rule.rotate_mask + 1 : (size_t)p->ncodes;
    if (!p->direct) {
        int64_t d = rank_codes(&p->rule, codes, n, j.skip, &rank_code);
        if (d < 0)
            goto nomem;
        bins = (size_t)d;
        j.rank_code = rank_code;
    } else {
        /* Keys in value order, below ncodes as the codes are. */
        for (size_t i = 0; i < n; i++)
            if (!(j.skip && codes[i] == WINENT_NODATA_CODE))
                codes[i] = winent_code_order(&p->rule, codes[i]);
    }
    m.h = calloc(bins ? bins : 1, sizeof *m.h);
    m.fc = calloc((size_t)p->nmax + 2, sizeof *m.fc);
    if (m.h == NULL || m.fc == NULL)
        goto nomem;
    for (int y = ya; y < yb; y++)
        majority_row(&j, &m, y, out + (size_t)(y - c->y0) * out_stride);
    goto done;
nomem:
    st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the CPU engine's majority");
done:
    free(codes);
    free(rank_code);
    free(m.h);
    free(m.fc);
    return st;
}
