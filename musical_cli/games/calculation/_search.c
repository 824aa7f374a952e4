/* The Calculation solver's search (solver._Search.dfs) in C.
 *
 * A transcription of solver.py's depth-first search made to be the same search node for node:
 * the same forced plays, the same children in the same order (the ordering heuristic, with its
 * quirks), the same prunes (dead card, single-pile relaxation), the same transposition table
 * (two generations of at most tt_max entries, looked up young first, stored young), the same node
 * count and the same calls to search.tick() every 256 nodes. So it gives the same verdict, the
 * same line and the same node count as the Python search, which tests/test_calculation_core.py
 * checks on many positions; the soundness arguments are the Python module's docstring. Only the
 * speed differs. The free-stock relaxation (solver.relaxed_winnable) is here too, on revisits
 * as RankSolver asks for it; its use on the last stock cards (RELAX_STOCK) is Python's only.
 *
 * A pile is its cards bottom first, one byte a card: the rank in the low nibble, the foundations
 * that declined it in the high one, exactly the bytes of solver.py's pile integers. The hash
 * table (the transposition table's two generations, the caches), its hash and the glue to Python
 * are in ../_core/search_common.h, which the three games' cores share.
 */
#include "search_common.h"

#define NF 4
#define MAXP 52     /* cards a pile can hold */
#define MAXPILES 4
#define COMPLETE 13
#define NEVER 1000
#define LATE 30
#define EMPTY 3
#define MAX_STEP 100
#define PROVED (1 << 30)
#define KEYMAX (6 + MAXPILES * (MAXP + 1))
_Static_assert(KEYMAX <= TABLE_KEY_MAX, "a transposition key must fit the table's length byte");

/* dfs results, as solver.py's WON, LOST, CUT; R_ERROR: a Python exception is set */
#define WON 1
#define LOST 0
#define CUT (-1)
#define R_ERROR (-2)

/* moves, as solver.py's tuples: kind | pile << 4 | foundation << 8 */
#define M_DEAL 0
#define M_PF 1
#define M_WF 2
#define M_WP 3
#define MOVE(kind, j, x) ((kind) | (j) << 4 | (x) << 8)
#define KIND(m) ((m) & 15)
#define PILE(m) ((m) >> 4 & 15)
#define FOUND(m) ((m) >> 8 & 15)

/* five-bit fields (four value bits and a guard) for the single-pile relaxation's fronts */
#define GUARD ((uint32_t)(16 | 16 << 5 | 16 << 10 | 16 << 15))
#define TOP ((uint32_t)(13 | 13 << 5 | 13 << 10 | 13 << 15))
#define GE(a, b) (((((a) | GUARD) - (b)) & GUARD) == GUARD) /* every field of a >= b's */
#define FRONTS_LIMIT (1 << 20) /* cached fronts before the cache is emptied */

static int SEQ[NF][13];   /* SEQ[x][pos]: the rank at pos of foundation x */
static int POS[NF][14];   /* POS[x][r]: where rank r stands in foundation x's sequence */
static int WANT[NF][14];  /* WANT[x][h]: the rank x wants at height h (0 when complete) */

/* ---- the search ------------------------------------------------------------------------- */

typedef struct {
    uint8_t h[NF];
    uint8_t wr, k;
    uint8_t len[MAXPILES];
    uint8_t c[MAXPILES][MAXP];
} Pos;

typedef struct {
    PyObject_HEAD
    Generations tt; /* the transposition table (first: GenerationsHead) */
    int n, npiles;
    int relax; /* the free-stock relaxation on revisits (solver._Search.relax_revisits) */
    uint8_t stock[MAXP];
    int next_at[MAXP + 1][14]; /* solver._Search.next_at */
    /* the line (solver._Search.path) */
    int path[4 * MAXP + 16];
    int npath;
    /* the Python search: its nodes attribute and its tick() */
    PyObject *search;
    long long nodes;
} Core;
_Static_assert(offsetof(Core, tt) == offsetof(GenerationsHead, tt), "Core begins as GenerationsHead");

static inline int
want_mask(const Pos *p, int r)
{
    return (WANT[0][p->h[0]] == r) | (WANT[1][p->h[1]] == r) << 1 | (WANT[2][p->h[2]] == r) << 2
           | (WANT[3][p->h[3]] == r) << 3;
}

/* the foundations that still need rank r */
static inline int
need_mask(const Pos *p, int r)
{
    return (POS[0][r] >= p->h[0]) | (POS[1][r] >= p->h[1]) << 1 | (POS[2][r] >= p->h[2]) << 2
           | (POS[3][r] >= p->h[3]) << 3;
}

static inline int
need_count(const Pos *p, int r)
{
    return (POS[0][r] >= p->h[0]) + (POS[1][r] >= p->h[1]) + (POS[2][r] >= p->h[2])
           + (POS[3][r] >= p->h[3]);
}

static inline int
same_pile(const Pos *p, int i, int j)
{
    return p->len[i] == p->len[j] && memcmp(p->c[i], p->c[j], p->len[i]) == 0;
}

/* ---- the single-pile relaxation (solver.front, solver.clearable) ------------------------ */

/* The fronts' cache, one for the module as solver.py's _FRONTS (the search and the rollouts
 * share it): pile bytes -> offset into fr (its count, then its members). */
typedef struct {
    Table fronts;
    uint32_t *fr;
    size_t frused, frcap;
    uint32_t *scratch;
    size_t scap;
} Fronts;

static Fronts FR;
static int fronts_start(Fronts *s);

static int
fr_reserve(Fronts *s, size_t more)
{
    if (s->frused + more <= s->frcap)
        return 0;
    size_t cap = s->frcap ? s->frcap : 1 << 16;
    while (s->frused + more > cap)
        cap *= 2;
    uint32_t *fr = PyMem_Realloc(s->fr, cap * sizeof(uint32_t));
    if (fr == NULL)
        return -1;
    s->fr = fr;
    s->frcap = cap;
    return 0;
}

static int
scratch_reserve(Fronts *s, size_t n)
{
    if (n <= s->scap)
        return 0;
    size_t cap = s->scap ? s->scap : 1024;
    while (n > cap)
        cap *= 2;
    uint32_t *sc = PyMem_Realloc(s->scratch, cap * sizeof(uint32_t));
    if (sc == NULL)
        return -1;
    s->scratch = sc;
    s->scap = cap;
    return 0;
}

/* The Pareto front of the pile of these len bytes: its offset into s->fr (the count, then the
 * members), or -1 when out of memory. Front members pack, in five-bit fields, the lowest
 * position each foundation's chain has used (13: none). The empty pile's front is {TOP}. */
static long
front(Fronts *s, const uint8_t *pile, int len)
{
    if (len == 0) {
        /* kept at offset 0 of the arena, put there when the cache is (re)started */
        return 0;
    }
    uint32_t hash = table_hash(pile, len);
    int val;
    if (table_get(&s->fronts, pile, len, hash, &val))
        return val;
    long below = front(s, pile, len - 1);
    if (below < 0)
        return -1;
    int card = pile[len - 1], r = card & 15;
    size_t nb = s->fr[below];
    if (scratch_reserve(s, nb * NF) < 0)
        return -1;
    size_t n = 0;
    for (int x = 0; x < NF; x++) {
        if (card >> (4 + x) & 1)
            continue; /* declined by x: it never goes there */
        uint32_t field = 15u << 5 * x, value = (uint32_t)POS[x][r] << 5 * x;
        for (size_t i = 0; i < nb; i++) {
            uint32_t m = s->fr[below + 1 + i];
            if (value < (m & field))
                s->scratch[n++] = (m & ~field) | value;
        }
    }
    /* drop duplicates and every member another one dominates (>= in every field): sorted
     * largest first (fronts are small: an insertion sort), a dominating member comes first */
    uint32_t *sc = s->scratch;
    for (size_t i = 1; i < n; i++) {
        uint32_t m = sc[i];
        size_t j = i;
        for (; j > 0 && sc[j - 1] < m; j--)
            sc[j] = sc[j - 1];
        sc[j] = m;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t m = s->scratch[i];
        int dominated = 0;
        for (size_t j = 0; j < kept && !dominated; j++)
            dominated = GE(s->scratch[j], m);
        if (!dominated)
            s->scratch[kept++] = m;
    }
    if (s->fronts.count >= FRONTS_LIMIT) {
        /* a full cache is emptied, as solver.py's (the fronts are a pure function of the pile) */
        table_free(&s->fronts);
        if (table_init(&s->fronts) < 0)
            return -1;
        s->frused = 2;
    }
    if (fr_reserve(s, kept + 1) < 0)
        return -1;
    long off = (long)s->frused;
    s->fr[off] = (uint32_t)kept;
    memcpy(s->fr + off + 1, s->scratch, kept * sizeof(uint32_t));
    s->frused += kept + 1;
    if (off > INT32_MAX || table_put(&s->fronts, pile, len, hash, (int)off) == NULL)
        return -1;
    return off;
}

/* 1 when the pile can be cleared at all with the foundations at hpack, 0 when not, -1 error */
static int
clearable(Fronts *s, const uint8_t *pile, int len, uint32_t hpack)
{
    long off = front(s, pile, len);
    if (off < 0)
        return -1;
    size_t n = s->fr[off];
    for (size_t i = 0; i < n; i++)
        if (GE(s->fr[off + 1 + i], hpack))
            return 1;
    return 0;
}

/* ---- the free-stock relaxation (solver.relaxed_winnable) --------------------------------
 *
 * Could the piles be cleared if every card not on a pile were at hand whenever a foundation
 * wants it? A transcription of solver.py's _greedy_clears and _relaxed (their shortcuts are
 * argued there), with a memo of verdicts shared by all searches as solver.py's _RELAXED (the
 * verdict is a function of the heights and piles alone). Used by the search on revisits when
 * asked (RankSolver, the blind player's end-game solver). */

#define RELAXED_LIMIT 300000

static Table RELAXED;

typedef struct {
    uint8_t h[NF];
    uint8_t len[MAXPILES];
    uint8_t c[MAXPILES][MAXP];
    int npiles;
} Relax;

static int
relax_key(const Relax *q, uint8_t *key)
{
    int order[MAXPILES];
    for (int j = 0; j < q->npiles; j++) {
        int i = j;
        while (i > 0) {
            int a = j, b = order[i - 1];
            int less = q->len[a] != q->len[b] ? q->len[a] < q->len[b]
                                              : memcmp(q->c[a], q->c[b], q->len[a]) < 0;
            if (!less)
                break;
            order[i] = order[i - 1];
            i--;
        }
        order[i] = j;
    }
    int n = 0;
    for (int x = 0; x < NF; x++)
        key[n++] = q->h[x];
    for (int i = 0; i < q->npiles; i++) {
        int j = order[i];
        key[n++] = q->len[j];
        memcpy(key + n, q->c[j], q->len[j]);
        n += q->len[j];
    }
    return n;
}

static inline int
relax_complete(const uint8_t *h)
{
    return h[0] == COMPLETE && h[1] == COMPLETE && h[2] == COMPLETE && h[3] == COMPLETE;
}

/* solver._greedy_clears: a quick witness (1: the relaxation clears everything) */
static int
greedy_clears(Relax q, const int *free0)
{
    int free[14];
    memcpy(free, free0, sizeof free);
    int progressed = 1;
    while (progressed) {
        progressed = 0;
        for (int x = 0; x < NF; x++) {
            int r = WANT[x][q.h[x]];
            while (r) {
                int j;
                for (j = 0; j < q.npiles; j++) {
                    int len = q.len[j];
                    if (len && (q.c[j][len - 1] & 15) == r && !(q.c[j][len - 1] >> (4 + x) & 1)) {
                        q.len[j]--;
                        break;
                    }
                }
                if (j == q.npiles) {
                    if (free[r] <= 0)
                        break;
                    free[r]--;
                }
                q.h[x]++;
                r = WANT[x][q.h[x]];
                progressed = 1;
            }
        }
    }
    return relax_complete(q.h);
}

static inline int
relax_want(const uint8_t *h, int r)
{
    return (WANT[0][h[0]] == r) | (WANT[1][h[1]] == r) << 1 | (WANT[2][h[2]] == r) << 2
           | (WANT[3][h[3]] == r) << 3;
}

static inline int
relax_need(const uint8_t *h, int r)
{
    return (POS[0][r] >= h[0]) | (POS[1][r] >= h[1]) << 1 | (POS[2][r] >= h[2]) << 2
           | (POS[3][r] >= h[3]) << 3;
}

/* solver._relaxed: 1, 0, or -1 when out of memory */
static int
relaxed(Relax q, int *free, int *counts)
{
    int took[64], ntook = 0, result;
    /* free copies first: they never hurt; then forced pile plays; then branch */
    for (;;) {
        int progressed = 0;
        for (int x = 0; x < NF; x++) {
            int r = WANT[x][q.h[x]];
            while (r && !counts[r] && free[r] > 0) {
                free[r]--;
                took[ntook++] = r;
                q.h[x]++;
                r = WANT[x][q.h[x]];
                progressed = 1;
            }
        }
        if (!progressed)
            break;
    }
    if (relax_complete(q.h)) {
        result = 1;
        goto done;
    }
    uint8_t key[KEYMAX];
    int klen = relax_key(&q, key), val;
    uint32_t hash = table_hash(key, klen);
    if (table_get(&RELAXED, key, klen, hash, &val)) {
        result = val;
        goto done;
    }
    int moves[4 * NF + NF][2], nmoves = 0, forced = 0;
    result = -2; /* not known yet */
    for (int j = 0; j < q.npiles; j++) {
        int len = q.len[j];
        if (!len)
            continue;
        int top = q.c[j][len - 1], r = top & 15, marks = top >> 4;
        int need = relax_need(q.h, r);
        if (!(need & ~marks)) {
            result = 0;
            break;
        }
        int want = relax_want(q.h, r);
        if (want == need) {
            nmoves = 0;
            for (int x = 0; x < NF; x++)
                if ((need >> x & 1) && !(marks >> x & 1)) {
                    moves[nmoves][0] = x;
                    moves[nmoves++][1] = j;
                }
            forced = 1;
            break;
        }
        int again = 0;
        for (int i = 0; i < j && !again; i++)
            again = q.len[i] == len && memcmp(q.c[i], q.c[j], len) == 0;
        if (again)
            continue;
        for (int x = 0; x < NF; x++)
            if ((want >> x & 1) && !(marks >> x & 1)) {
                moves[nmoves][0] = x;
                moves[nmoves++][1] = j;
            }
    }
    if (result == -2) {
        if (!forced) {
            int covered = 0;
            for (int i = 0; i < nmoves; i++)
                covered |= 1 << moves[i][0];
            for (int x = 0; x < NF; x++) {
                int r = WANT[x][q.h[x]];
                if (r && !(covered >> x & 1) && free[r] > 0) {
                    moves[nmoves][0] = x;
                    moves[nmoves++][1] = -1;
                }
            }
        }
        result = 0;
        for (int i = 0; i < nmoves && !result; i++) {
            int x = moves[i][0], j = moves[i][1];
            Relax child = q;
            child.h[x]++;
            if (j < 0) {
                int r = WANT[x][q.h[x]];
                free[r]--;
                result = relaxed(child, free, counts);
                free[r]++;
            }
            else {
                int r = q.c[j][q.len[j] - 1] & 15;
                child.len[j]--;
                counts[r]--;
                result = relaxed(child, free, counts);
                counts[r]++;
            }
        }
    }
    if (result >= 0 && table_put(&RELAXED, key, klen, hash, result) == NULL)
        result = -1;
done:
    for (int i = 0; i < ntook; i++)
        free[took[i]]++;
    return result;
}

/* solver.relaxed_winnable on the position's heights and piles: 1, 0, or -1 out of memory */
static int
relaxed_winnable(const Pos *p, int npiles)
{
    Relax q;
    memcpy(q.h, p->h, NF);
    q.npiles = npiles;
    for (int j = 0; j < npiles; j++) {
        q.len[j] = p->len[j];
        memcpy(q.c[j], p->c[j], p->len[j]);
    }
    uint8_t key[KEYMAX];
    int klen = relax_key(&q, key), val;
    uint32_t hash = table_hash(key, klen);
    if (table_get(&RELAXED, key, klen, hash, &val))
        return val;
    int counts[14] = {0}, free[14] = {0};
    for (int j = 0; j < npiles; j++)
        for (int i = 0; i < q.len[j]; i++)
            counts[q.c[j][i] & 15]++;
    for (int r = 1; r < 14; r++)
        free[r] = (POS[0][r] >= q.h[0]) + (POS[1][r] >= q.h[1]) + (POS[2][r] >= q.h[2])
                  + (POS[3][r] >= q.h[3]) - counts[r];
    if (greedy_clears(q, free))
        return 1;
    if (RELAXED.count >= RELAXED_LIMIT) {
        table_free(&RELAXED);
        if (table_init(&RELAXED) < 0)
            return -1;
    }
    int got = relaxed(q, free, counts);
    if (got >= 0 && table_put(&RELAXED, key, klen, hash, got) == NULL)
        return -1;
    return got;
}

/* ---- the moves -------------------------------------------------------------------------- */

/* solver._Search.play: a foundation play, from a pile or the waste */
static void
play(Pos *p, int move)
{
    int x;
    if (KIND(move) == M_PF) {
        p->len[PILE(move)]--;
        x = FOUND(move);
    }
    else {
        x = FOUND(move);
        p->wr = 0;
    }
    p->h[x]++;
}

/* solver._Search.dead: is a card of rank r with these marks, put on pile j, never to be built? */
static int
dead(const Pos *p, int j, int r, int marks)
{
    int len = p->len[j];
    if (!len)
        return 0;
    int counts[14] = {0};
    for (int i = 0; i < len; i++)
        counts[p->c[j][i] & 15]++;
    for (int x = 0; x < NF; x++) {
        if (marks >> x & 1)
            continue;
        int hx = p->h[x], end = POS[x][r];
        if (end < hx)
            continue; /* x does not need r */
        int blocked = 0;
        for (int pos = hx; pos < end && !blocked; pos++) {
            int q = SEQ[x][pos], c = counts[q];
            blocked = c && c == need_count(p, q); /* every copy of q x needs lies under the card */
        }
        if (!blocked)
            return 0; /* x may take it */
    }
    return 1;
}

/* solver._Search.step for a time step (M_DEAL, M_WP): 1 with the child in p, 0 pruned, -1 error */
static int
time_step(Core *s, Pos *p, int move)
{
    for (int j = 0; j < s->npiles; j++) {
        int len = p->len[j];
        if (len) {
            int want = want_mask(p, p->c[j][len - 1] & 15);
            p->c[j][len - 1] |= (uint8_t)(want << 4);
        }
    }
    uint32_t hpack = p->h[0] | p->h[1] << 5 | p->h[2] << 10 | p->h[3] << 15;
    if (KIND(move) == M_WP) {
        int j = PILE(move), r = p->wr;
        int want = want_mask(p, r);
        if (dead(p, j, r, want))
            return 0;
        if (p->len[j] >= MAXP) {
            PyErr_SetString(PyExc_SystemError, "Calculation core: a pile of more than 52 cards");
            return -1;
        }
        p->c[j][p->len[j]++] = (uint8_t)(want << 4 | r);
        p->wr = 0;
    }
    for (int j = 0; j < s->npiles; j++) {
        if (p->len[j]) {
            int ok = clearable(&FR, p->c[j], p->len[j], hpack);
            if (ok <= 0) {
                if (ok < 0)
                    PyErr_NoMemory();
                return ok;
            }
        }
    }
    if (p->k < s->n) {
        p->wr = s->stock[p->k];
        p->k++;
    }
    return 1;
}

/* solver._Search.places: the placings of the waste card (rank c), best first */
static int
places(const Core *s, const Pos *p, int c, int *out)
{
    int avail[14], when[14];
    for (int r = 0; r < 14; r++) {
        avail[r] = s->next_at[p->k][r];
        /* as solver.py: only a value of exactly NEVER counts as late (see next_at there) */
        if (r >= 1 && avail[r] == NEVER)
            avail[r] = LATE;
    }
    for (int j = 0; j < s->npiles; j++)
        if (p->len[j])
            avail[p->c[j][p->len[j] - 1] & 15] = 0;
    for (int r = 0; r < 14; r++)
        when[r] = NEVER;
    for (int x = 0; x < NF; x++) {
        int m = 0;
        for (int pos = p->h[x]; pos < 13; pos++) {
            int r = SEQ[x][pos];
            if (m < when[r])
                when[r] = m;
            if (avail[r] > m)
                m = avail[r];
        }
    }
    int cost[MAXPILES], js[MAXPILES], n = 0;
    for (int j = 0; j < s->npiles; j++) {
        int seen = 0;
        for (int i = 0; i < j && !seen; i++)
            seen = same_pile(p, i, j);
        if (seen)
            continue;
        int cc;
        if (!p->len[j]) {
            cc = c == 13 ? 0 : EMPTY;
        }
        else {
            int t = p->c[j][p->len[j] - 1] & 15;
            cc = -1;
            for (int x = 0; x < NF; x++) {
                int pc = POS[x][c];
                if (pc >= p->h[x] && POS[x][t] == pc + 1) {
                    cc = 0;
                    break;
                }
            }
            if (cc < 0) {
                if (c == 13 && t == 13) {
                    cc = 0;
                }
                else {
                    int delay = when[c] - when[t];
                    cc = 1 + (delay > 0 ? delay : 0);
                }
            }
        }
        /* sorted by (cost, pile), as Python sorts the tuples */
        int i = n++;
        while (i > 0 && cost[i - 1] > cc) {
            cost[i] = cost[i - 1];
            js[i] = js[i - 1];
            i--;
        }
        cost[i] = cc;
        js[i] = j;
    }
    for (int i = 0; i < n; i++)
        out[i] = MOVE(M_WP, js[i], 0);
    return n;
}

/* solver._Search.children: every move worth trying, best first */
static int
children(const Core *s, const Pos *p, int *out)
{
    int n = 0;
    for (int j = 0; j < s->npiles; j++) {
        int len = p->len[j];
        if (!len)
            continue;
        int top = p->c[j][len - 1], r = top & 15, marks = top >> 4;
        for (int x = 0; x < NF; x++) {
            if (WANT[x][p->h[x]] == r && !(marks >> x & 1)) {
                int again = 0;
                for (int i = 0; i < j && !again; i++)
                    again = same_pile(p, i, j);
                if (again)
                    break; /* the same pile again: the same children */
                out[n++] = MOVE(M_PF, j, x);
            }
        }
    }
    if (p->wr) {
        for (int x = 0; x < NF; x++)
            if (WANT[x][p->h[x]] == p->wr)
                out[n++] = MOVE(M_WF, 0, x);
        return n + places(s, p, p->wr, out + n);
    }
    if (p->k < s->n)
        out[n++] = MOVE(M_DEAL, 0, 0);
    return n;
}

/* ---- the transposition table ------------------------------------------------------------ */

static int
pile_less(const Pos *p, int a, int b)
{
    if (p->len[a] != p->len[b])
        return p->len[a] < p->len[b];
    return memcmp(p->c[a], p->c[b], p->len[a]) < 0;
}

/* The key: heights, waste rank, stock position, then the piles as a multiset (sorted; any
 * fixed order does, as solver.py's sorted integers), each its length then its bytes. */
static int
make_key(const Core *s, const Pos *p, uint8_t *key)
{
    int order[MAXPILES];
    for (int j = 0; j < s->npiles; j++) {
        int i = j;
        while (i > 0 && pile_less(p, j, order[i - 1])) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = j;
    }
    int n = 0;
    for (int x = 0; x < NF; x++)
        key[n++] = p->h[x];
    key[n++] = p->wr;
    key[n++] = p->k;
    for (int i = 0; i < s->npiles; i++) {
        int j = order[i];
        key[n++] = p->len[j];
        memcpy(key + n, p->c[j], p->len[j]);
        n += p->len[j];
    }
    return n;
}

static int
lookup(const Core *s, const uint8_t *key, int len, uint32_t hash)
{
    int val;
    if (table_get(&s->tt.young, key, len, hash, &val))
        return val;
    if (table_get(&s->tt.old, key, len, hash, &val))
        return val;
    return -1;
}

/* solver._Search.store: 0, or -1 with MemoryError */
static int
store(Core *s, const uint8_t *key, int len, uint32_t hash, int allow)
{
    int val;
    int have = table_get(&s->tt.young, key, len, hash, &val);
    /* a key already young is updated in place, so only a new one ages a full generation */
    if (!have && generations_full(&s->tt) && generations_age(&s->tt) < 0)
        return -1;
    if ((!have || val < allow) && table_put(&s->tt.young, key, len, hash, allow) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* ---- the depth-first search (solver._Search.dfs) ---------------------------------------- */

static int
count_node(Core *s)
{
    s->nodes++;
    if (s->nodes & 255)
        return 0;
    /* tick() may raise _Timeout, KeyboardInterrupt, ...: it propagates */
    if (nodes_write(s->search, s->nodes) < 0 || tick_method(s->search) < 0)
        return R_ERROR;
    return 0;
}

static int
dfs(Core *s, Pos pos, int allow)
{
    if (count_node(s) < 0)
        return R_ERROR;
    Pos *p = &pos;
    int mark = s->npath;
    int forced[NF], nforced;
    /* Forced plays, made at once while there is exactly one. */
    for (;;) {
        if (p->h[0] == COMPLETE && p->h[1] == COMPLETE && p->h[2] == COMPLETE && p->h[3] == COMPLETE)
            return WON;
        nforced = -1;
        if (p->wr) {
            int want = want_mask(p, p->wr);
            if (want && need_mask(p, p->wr) == want) {
                nforced = 0;
                for (int x = 0; x < NF; x++)
                    if (want >> x & 1)
                        forced[nforced++] = MOVE(M_WF, 0, x);
            }
        }
        if (nforced < 0) {
            for (int j = 0; j < s->npiles; j++) {
                int len = p->len[j];
                if (!len)
                    continue;
                int top = p->c[j][len - 1], r = top & 15;
                int need = need_mask(p, r), free = need & ~(top >> 4);
                if (!free) {
                    s->npath = mark;
                    return LOST; /* a card every foundation that needs it has declined */
                }
                if (want_mask(p, r) == need) {
                    nforced = 0;
                    for (int x = 0; x < NF; x++)
                        if (free >> x & 1)
                            forced[nforced++] = MOVE(M_PF, j, x);
                    break;
                }
            }
        }
        if (nforced != 1)
            break;
        s->path[s->npath++] = forced[0];
        play(p, forced[0]);
    }
    uint8_t key[KEYMAX];
    int klen = make_key(s, p, key);
    uint32_t hash = table_hash(key, klen);
    int got = lookup(s, key, klen, hash);
    if (got >= allow) {
        s->npath = mark;
        return got == PROVED ? LOST : CUT;
    }
    if (got >= 0 && s->relax) {
        /* searched before and failed: worth the relaxation's price now */
        int ok = relaxed_winnable(p, s->npiles);
        if (ok < 0) {
            PyErr_NoMemory();
            return R_ERROR;
        }
        if (!ok) {
            s->npath = mark;
            if (store(s, key, klen, hash, PROVED) < 0)
                return R_ERROR;
            return LOST;
        }
    }
    int moves[4 * NF + NF + MAXPILES], nmoves;
    if (nforced > 1) {
        memcpy(moves, forced, nforced * sizeof(int));
        nmoves = nforced;
    }
    else {
        nmoves = children(s, p, moves);
    }
    int cut = 0, base = s->npath;
    for (int i = 0; i < nmoves; i++) {
        int cost = i < MAX_STEP ? i : MAX_STEP;
        if (cost > allow) {
            cut = 1;
            break;
        }
        Pos child = *p;
        int move = moves[i];
        if (KIND(move) == M_PF || KIND(move) == M_WF) {
            play(&child, move);
        }
        else {
            int ok = time_step(s, &child, move);
            if (ok < 0)
                return R_ERROR;
            if (!ok)
                continue; /* pruned: proved lost */
        }
        s->path[s->npath++] = move;
        got = dfs(s, child, allow - cost);
        if (got == WON || got == R_ERROR)
            return got;
        s->npath = base;
        if (got == CUT)
            cut = 1;
    }
    s->npath = mark;
    if (store(s, key, klen, hash, cut ? allow : PROVED) < 0)
        return R_ERROR;
    return cut ? CUT : LOST;
}

/* ---- the blind player's rollouts (blind._rollout) ----------------------------------------
 *
 * The placing heuristic playing a shuffle of the unseen cards to the end, exactly as blind.py's
 * _rollout, _foundation_for, _best_pile, _costs and _clearable_with do it (the same choices, the
 * same floating-point costs, so the same score; tests/test_calculation_core.py compares them).
 * Piles hold ranks only here (no declined marks). */

static int SUCC[14][14]; /* blind.SUCC: the foundations on which rank t comes right after c */

/* blind._wait: how many cards the foundation that will want rank r soonest takes before it */
static int
wait_of(const uint8_t *h, int r)
{
    int best = 99;
    for (int x = 0; x < NF; x++) {
        int d = POS[x][r] - h[x];
        if (d >= 0 && d < best)
            best = d;
    }
    return best;
}

typedef struct {
    double empty, depth, share; /* blind.EMPTY_COST, DEPTH_COST, BUILT_SHARE */
} Policy;

/* blind._costs: the cost of putting a card of rank c on a pile topped by rank t (0: empty) */
static void
costs_row(const uint8_t *h, int c, const Policy *pol, double *out)
{
    int waits[14];
    for (int r = 0; r < 14; r++)
        waits[r] = wait_of(h, r);
    int wc = waits[c], needing = 0;
    for (int x = 0; x < NF; x++)
        if (POS[x][c] >= h[x])
            needing |= 1 << x;
    out[0] = c == 13 ? 0.0 : pol->empty;
    for (int t = 1; t < 14; t++) {
        if ((SUCC[c][t] & needing) || (c == 13 && t == 13)) {
            out[t] = 0.0;
        }
        else {
            int wt = waits[t];
            out[t] = wc < wt ? 1.0 + (wt - wc) * 0.1 : 10.0 + (wc - wt);
        }
    }
}

/* blind._foundation_for: of the foundations wanting rank r, those whose next card is on a pile
 * top (or else all), the one furthest behind, then the first */
static int
foundation_for(const Pos *p, int npiles, int r)
{
    int xs = want_mask(p, r);
    if (xs == 1 || xs == 2 || xs == 4 || xs == 8)
        return xs == 1 ? 0 : xs == 2 ? 1 : xs == 4 ? 2 : 3;
    int tops = 0;
    for (int j = 0; j < npiles; j++)
        if (p->len[j])
            tops |= 1 << (p->c[j][p->len[j] - 1] & 15);
    int ready = 0;
    for (int x = 0; x < NF; x++)
        if ((xs >> x & 1) && (tops >> WANT[x][p->h[x] + 1] & 1))
            ready |= 1 << x;
    int from = ready ? ready : xs, best = -1;
    for (int x = 0; x < NF; x++)
        if ((from >> x & 1) && (best < 0 || p->h[x] < p->h[best]))
            best = x;
    return best;
}

/* blind._clearable_with (solver.clearable_on): can pile j still be cleared with a card of rank
 * c put on it? 1, 0, or -1 when out of memory */
static int
clearable_with(const Pos *p, int j, int c, uint32_t hpack)
{
    if (!p->len[j])
        return 1;
    long off = front(&FR, p->c[j], p->len[j]);
    if (off < 0)
        return -1;
    size_t n = FR.fr[off];
    for (int x = 0; x < NF; x++) {
        uint32_t field = 15u << 5 * x, value = (uint32_t)POS[x][c] << 5 * x;
        for (size_t i = 0; i < n; i++) {
            uint32_t m = FR.fr[off + 1 + i];
            if (value < (m & field) && GE((m & ~field) | value, hpack))
                return 1;
        }
    }
    return 0;
}

/* blind._best_pile: the cheapest pile (a little more for every card on it) that stays
 * clearable, ties to the first; else the cheapest. -1 when out of memory. */
static int
best_pile(const Pos *p, int npiles, int c, const Policy *pol)
{
    double row[14], costs[MAXPILES];
    costs_row(p->h, c, pol, row);
    int best = 0;
    for (int j = 0; j < npiles; j++) {
        int len = p->len[j];
        costs[j] = row[len ? p->c[j][len - 1] & 15 : 0] + pol->depth * len;
        if (costs[j] < costs[best])
            best = j;
    }
    uint32_t hpack = p->h[0] | p->h[1] << 5 | p->h[2] << 10 | p->h[3] << 15;
    int ok = clearable_with(p, best, c, hpack);
    if (ok)
        return ok < 0 ? -1 : best; /* nearly always: no need to sort */
    int order[MAXPILES];
    for (int j = 0; j < npiles; j++) {
        int i = j;
        while (i > 0 && costs[order[i - 1]] > costs[j]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = j;
    }
    for (int i = 0; i < npiles; i++) {
        ok = clearable_with(p, order[i], c, hpack);
        if (ok)
            return ok < 0 ? -1 : order[i];
    }
    return best;
}

/* blind._rollout: the score (1 for a win, plus share for every card built, in 52nds); a
 * negative value when out of memory */
static double
rollout(Pos pos, int npiles, int waste, const uint8_t *order, int n, const Policy *pol)
{
    Pos *p = &pos;
    for (int i = -1; i <= n; i++) {
        int c = i < 0 ? waste : i < n ? order[i] : 0; /* 0: the stock is out, only plays left */
        /* play pile tops to foundations that want them, until none does */
        int j = 0;
        while (j < npiles) {
            int len = p->len[j];
            if (len) {
                int t = p->c[j][len - 1] & 15;
                if (want_mask(p, t)) {
                    p->h[foundation_for(p, npiles, t)]++;
                    p->len[j]--;
                    j = 0; /* a play may free a card on an earlier pile */
                    continue;
                }
            }
            j++;
        }
        if (!c)
            continue;
        if (want_mask(p, c)) {
            p->h[foundation_for(p, npiles, c)]++;
        }
        else {
            j = best_pile(p, npiles, c, pol);
            if (j < 0)
                return -1.0;
            p->c[j][p->len[j]++] = (uint8_t)c;
        }
    }
    int built = p->h[0] + p->h[1] + p->h[2] + p->h[3];
    return (built == 52 ? 1.0 : 0.0) + pol->share * built / 52;
}

static PyObject *
py_rollouts(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer h;
    PyObject *piles, *orders;
    int waste;
    Policy pol;
    if (!PyArg_ParseTuple(args, "y*O!iOddd", &h, &PyTuple_Type, &piles, &waste, &orders, &pol.empty,
                          &pol.depth, &pol.share))
        return NULL;
    Pos pos;
    memset(&pos, 0, sizeof pos);
    int npiles = (int)PyTuple_GET_SIZE(piles), total = 0;
    int ok = h.len == NF && npiles >= 1 && npiles <= MAXPILES && waste >= 0 && waste <= 13;
    for (int x = 0; ok && x < NF; x++) {
        pos.h[x] = ((const uint8_t *)h.buf)[x];
        ok = pos.h[x] <= COMPLETE;
        total += pos.h[x];
    }
    PyBuffer_Release(&h);
    for (int j = 0; ok && j < npiles; j++) {
        PyObject *b = PyTuple_GET_ITEM(piles, j);
        ok = PyBytes_Check(b) && PyBytes_GET_SIZE(b) <= MAXP;
        if (ok) {
            const uint8_t *c = (const uint8_t *)PyBytes_AS_STRING(b);
            pos.len[j] = (uint8_t)PyBytes_GET_SIZE(b);
            for (int i = 0; ok && i < pos.len[j]; i++)
                ok = c[i] >= 1 && c[i] <= 13;
            memcpy(pos.c[j], c, pos.len[j]);
            total += pos.len[j];
        }
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "rollouts: a position out of range");
        return NULL;
    }
    total += waste != 0;
    PyObject *seq = PySequence_Fast(orders, "rollouts: orders must be a sequence of bytes");
    if (seq == NULL)
        return NULL;
    double sum = 0.0;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *b = PySequence_Fast_GET_ITEM(seq, i);
        /* every card must fit one pile at the end: at most 52 cards in all */
        if (!PyBytes_Check(b) || total + PyBytes_GET_SIZE(b) > 52) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "rollouts: an order is bytes, of at most the cards left");
            return NULL;
        }
        const uint8_t *o = (const uint8_t *)PyBytes_AS_STRING(b);
        int n = (int)PyBytes_GET_SIZE(b);
        for (int k = 0; k < n; k++) {
            if (o[k] < 1 || o[k] > 13) {
                Py_DECREF(seq);
                PyErr_SetString(PyExc_ValueError, "rollouts: a rank out of range");
                return NULL;
            }
        }
        double got = rollout(pos, npiles, waste, o, n, &pol);
        if (got < 0) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        sum += got;
    }
    Py_DECREF(seq);
    return PyFloat_FromDouble(sum);
}

static PyObject *
py_clear_fronts(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    table_free(&RELAXED);
    if (fronts_start(&FR) < 0 || table_init(&RELAXED) < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"rollouts", py_rollouts, METH_VARARGS,
     "rollouts(heights, piles, waste, orders, empty_cost, depth_cost, built_share) -> float: the "
     "sum, in order, of blind._rollout's scores from this position (heights: 4 bytes; piles: a "
     "tuple of bytes, ranks bottom first; waste: a rank or 0) over the stock orders (bytes)."},
    {"clear_fronts", py_clear_fronts, METH_NOARGS,
     "Empty the caches of fronts and of the free-stock relaxation's verdicts (solver.clear_caches)."},
    {NULL, NULL, 0, NULL},
};

/* ---- the Python type -------------------------------------------------------------------- */

static int
fronts_start(Fronts *s)
{
    table_free(&s->fronts);
    if (table_init(&s->fronts) < 0 || fr_reserve(s, 2) < 0)
        return -1;
    s->fr[0] = 1; /* the empty pile's front: {TOP} */
    s->fr[1] = TOP;
    s->frused = 2;
    return 0;
}

static void
Core_dealloc(Core *s)
{
    generations_free(&s->tt);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int
Core_init(Core *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stock", "piles", "tt_max", "relax", NULL};
    Py_buffer stock;
    int npiles, relax = 0;
    long tt_max;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*il|p", kwlist, &stock, &npiles, &tt_max, &relax))
        return -1;
    s->relax = relax;
    int ok = stock.len <= MAXP && npiles >= 1 && npiles <= MAXPILES && tt_max > 0;
    const uint8_t *st = stock.buf;
    for (Py_ssize_t i = 0; ok && i < stock.len; i++)
        ok = st[i] >= 1 && st[i] <= 13;
    if (ok) {
        s->n = (int)stock.len;
        memcpy(s->stock, st, stock.len);
    }
    PyBuffer_Release(&stock);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "Core(stock, piles, tt_max): a stock of at most 52 "
                                          "ranks 1-13, 1 to 4 piles, tt_max > 0");
        return -1;
    }
    s->npiles = npiles;
    /* next_at[k][r]: how many deals from position k until a card of rank r turns up, exactly as
     * solver.py builds it (NEVER plus one a step back for a rank that never turns up again) */
    for (int r = 0; r < 14; r++)
        s->next_at[s->n][r] = NEVER;
    for (int i = s->n - 1; i >= 0; i--) {
        for (int r = 0; r < 14; r++)
            s->next_at[i][r] = s->next_at[i + 1][r] + 1;
        s->next_at[i][s->stock[i]] = 1;
    }
    return generations_start(&s->tt, tt_max);
}

static PyObject *
Core_dfs(Core *s, PyObject *args)
{
    PyObject *search, *piles;
    Py_buffer h;
    int wr, k, allow;
    if (!PyArg_ParseTuple(args, "Oy*O!iii", &search, &h, &PyTuple_Type, &piles, &wr, &k, &allow))
        return NULL;
    Pos pos;
    memset(&pos, 0, sizeof pos);
    int ok = h.len == NF && PyTuple_GET_SIZE(piles) == s->npiles && wr >= 0 && wr <= 13 && k >= 0
             && k <= s->n;
    for (int x = 0; ok && x < NF; x++) {
        pos.h[x] = ((const uint8_t *)h.buf)[x];
        ok = pos.h[x] <= COMPLETE;
    }
    PyBuffer_Release(&h);
    for (int j = 0; ok && j < s->npiles; j++) {
        PyObject *b = PyTuple_GET_ITEM(piles, j);
        ok = PyBytes_Check(b) && PyBytes_GET_SIZE(b) <= MAXP;
        if (ok) {
            const uint8_t *c = (const uint8_t *)PyBytes_AS_STRING(b);
            pos.len[j] = (uint8_t)PyBytes_GET_SIZE(b);
            for (int i = 0; ok && i < pos.len[j]; i++)
                ok = (c[i] & 15) >= 1 && (c[i] & 15) <= 13;
            memcpy(pos.c[j], c, pos.len[j]);
        }
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "Core.dfs: a position out of range");
        return NULL;
    }
    pos.wr = (uint8_t)wr;
    pos.k = (uint8_t)k;
    if (nodes_read(search, &s->nodes) < 0)
        return NULL;
    s->search = search;
    s->npath = 0;
    int res = dfs(s, pos, allow);
    s->search = NULL;
    /* the count goes back to the search however the search ended */
    if (nodes_hand_back(search, s->nodes, res == R_ERROR) < 0)
        return NULL;
    return PyLong_FromLong(res);
}

/* a move of the path as solver.py's move tuple */
static PyObject *
move_tuple(const void *path, Py_ssize_t i)
{
    int m = ((const int *)path)[i];
    switch (KIND(m)) {
    case M_PF:
        return Py_BuildValue("(iii)", M_PF, PILE(m), FOUND(m));
    case M_WF:
        return Py_BuildValue("(ii)", M_WF, FOUND(m));
    case M_WP:
        return Py_BuildValue("(ii)", M_WP, PILE(m));
    default:
        return Py_BuildValue("(i)", M_DEAL);
    }
}

/* the line of the last dfs that won, as solver.py's move tuples */
static PyObject *
Core_line(Core *s, PyObject *Py_UNUSED(ignored))
{
    return list_of(s->path, s->npath, move_tuple);
}

static PyMethodDef Core_methods[] = {
    {"dfs", (PyCFunction)Core_dfs, METH_VARARGS,
     "dfs(search, heights, piles, waste, k, allow) -> 1 (won), 0 (lost) or -1 (cut): "
     "solver._Search.dfs from this position (heights: 4 bytes; piles: a tuple of bytes, bottom "
     "first); search.nodes is read and written and search.tick() called every 256 nodes."},
    {"line", (PyCFunction)Core_line, METH_NOARGS, "The path of the last dfs that won."},
    TT_SIZE_METHOD,
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = CORE_TYPE(
    "musical_cli.games.calculation._search.Core",
    "Core(stock, piles, tt_max, relax=False): solver._Search's search in C, node for node, with "
    "its own transposition table (kept across dfs calls).",
    Core, Core_init, Core_dealloc, Core_methods);

static struct PyModuleDef module = CORE_MODULE(
    "The Calculation solver's search in C (optional; solver.py has the same in Python).",
    module_methods);

PyMODINIT_FUNC
PyInit__search(void)
{
    /* solver.py's SEQ, POS and WANT: foundation x (0-3) builds by x + 1 from rank x + 1 */
    for (int x = 0; x < NF; x++) {
        POS[x][0] = -1;
        for (int j = 0; j < 13; j++) {
            int r = ((x + 1) * (j + 1) - 1) % 13 + 1;
            SEQ[x][j] = r;
            POS[x][r] = j;
            WANT[x][j] = r;
        }
        WANT[x][13] = 0;
    }
    for (int c = 0; c < 14; c++)
        for (int t = 0; t < 14; t++) {
            SUCC[c][t] = 0;
            for (int x = 0; x < NF; x++)
                if (c && t && POS[x][t] == POS[x][c] + 1)
                    SUCC[c][t] |= 1 << x;
        }
    if (fronts_start(&FR) < 0 || table_init(&RELAXED) < 0) {
        PyErr_NoMemory();
        return NULL;
    }
    return module_with_core(&module, &CoreType);
}
