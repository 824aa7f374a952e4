/* The Crazy Quilt search (solver.Search.run) in C.
 *
 * A transcription of solver.py's Search, made to be the same search node for node: the same
 * iterations (limited-discrepancy search, then the unlimited one), the same children in the same
 * order (the same scores, sorted stably), the same pruning rules (1 to 9, rule 6 by way of rule
 * 7, and the lazy test of children proven lost), the same transposition table (cleared when it
 * holds tt_max entries, as the Python dict is), the same node count and the same calls to
 * tick(nodes) every clock_every nodes. So it gives the same verdict, the same line and the same
 * node count as the Python search, which tests/test_crazy_quilt_core.py checks on positions of
 * real games of every rule set; the soundness arguments are the Python module's docstring. Only
 * the speed differs. Without a C compiler the package installs without this module and
 * solver.py uses its own search.
 *
 * A card is suit * 16 + rank, as in solver.py (never 0, so 0 means "no card"); the quilt is a
 * 64-bit occupancy mask over the fixed opening quilt. The hash table, the hash and the glue to
 * Python are in ../_core/search_common.h, which the three games' cores share.
 */
/* The transposition table's slots carry two fields more than the other cores' (see Marks). */
#define SLOT_EXTRA                                                                              \
    uint32_t gen;         /* the run that set val (Marks.gen) */                                \
    uint8_t joint_passed; /* rule 9 did not prove the position lost (Search.joint_passed) */
#include "search_common.h"
#include <stdlib.h>

typedef uint64_t u64;

#define CELLS 64
#define NRES 8
#define MAXP 112 /* cards in one pile (waste, stock, a reserve): there are 104 cards */
#define KEYMAX 144 /* 8 + 8 + 2 + 96 cards (+ 7 separators in Persian Rug) */
#define INF (1 << 30)
#define PROVEN (INF + 1)
#define CHECKED (-2)
#define ABSENT (-1)
#define WASTE_SRC (-1)
#define RES_SRC 100

/* results inside the search: bit 0 won, bit 1 incomplete (a line was cut); R_ERROR unwinds */
#define R_WON 1
#define R_CUT 2
#define R_ERROR (-1) /* a Python exception is set (from tick(), or no memory) */

/* ---- positions and moves ----------------------------------------------------------------- */

typedef struct {
    u64 occ;
    uint8_t up[4], down[4];
    uint8_t left;          /* redeals left */
    uint8_t nw, ns, ss;    /* waste length, stock length, stock start (the top is stock[ss]) */
    uint8_t rlen[NRES];    /* Persian Rug: each reserve's length */
    uint8_t waste[MAXP];
    uint8_t stock[MAXP];
    uint8_t res[NRES][MAXP]; /* bottom first */
} St;

/* kind: 'f' foundation (src, dest 0-7), 'b' quilt cell src onto the waste, 'd' deal,
 * 'r' redeal, 'R' onto reserve dest (src a cell or RES_SRC + j) */
typedef struct {
    char kind;
    int16_t src;
    int8_t dest;
} Mv;

/* ---- the transposition table: search_common.h's Table, with the run of each mark ---------- */

_Static_assert(sizeof(Slot) <= 24, "a slot of the table grew: the memory figures assume 24 bytes");
_Static_assert(KEYMAX <= TABLE_KEY_MAX, "a transposition key must fit the table's length byte");

typedef struct {
    Table table;
    /* Restarts so far. A restart turns every mark but PROVEN into CHECKED; rewriting the table
     * then cost up to 15% of a deal's time (deal 993), so a mark set before the current run is
     * read as CHECKED instead: the same values, found without a sweep. */
    uint32_t gen;
} Marks;

/* The hash of a key: FNV-1a, the high bits folded in as solver.key_hash does, since a
 * restart's order of children is seeded by it (shuffle); the table keeps its low 32 bits. */
static inline u64
key_hash(const uint8_t *key, int len)
{
    u64 h = fnv1a(key, len);
    return h ^ (h >> 29);
}

/* The slot of key's mark, or the empty slot where it would go. */
static inline Slot *
mark_slot(const Marks *m, const uint8_t *key, int len, u64 h)
{
    return table_find(&m->table, key, len, (uint32_t)h);
}

/* key's mark, or ABSENT; a mark set before the current run reads as CHECKED (PROVEN stays). */
static int
mark_get(const Marks *m, const uint8_t *key, int len, u64 h)
{
    const Slot *s = mark_slot(m, key, len, h);
    if (!s->off)
        return ABSENT;
    return s->gen == m->gen || s->val == PROVEN ? s->val : CHECKED;
}

/* Sets key's mark in the current run (0, or -1 with no memory). */
static int
mark_set(Marks *m, const uint8_t *key, int len, u64 h, int val)
{
    Slot *s = table_put(&m->table, key, len, (uint32_t)h, val);
    if (s == NULL)
        return -1;
    s->gen = m->gen;
    return 0;
}

/* ---- the current line's keys (Persian Rug, where lines can go round) ----------------------
 * A set of depths, hashed by the key of the position at that depth (kept in Core.keys), with
 * deletion (linear probing, backward shift): a frame adds its key on entry and removes it on
 * return, so the set holds the line's keys only. */

typedef struct {
    u64 hash;
    int32_t depth; /* depth + 1; 0: empty */
    uint16_t len;
} PathSlot;

typedef struct {
    PathSlot *slots;
    size_t cap; /* a power of two, more than twice the deepest line */
} PathSet;

static int
path_find(const PathSet *p, uint8_t (*keys)[KEYMAX], const uint8_t *key, int len, u64 h)
{
    size_t mask = p->cap - 1, i = (size_t)h & mask;
    for (;;) {
        const PathSlot *s = &p->slots[i];
        if (s->depth == 0)
            return -1;
        if (s->hash == h && s->len == len && memcmp(keys[s->depth - 1], key, len) == 0)
            return (int)i;
        i = (i + 1) & mask;
    }
}

static void
path_add(PathSet *p, int depth, int len, u64 h)
{
    size_t mask = p->cap - 1, i = (size_t)h & mask;
    while (p->slots[i].depth)
        i = (i + 1) & mask;
    p->slots[i].hash = h;
    p->slots[i].depth = depth + 1;
    p->slots[i].len = (uint16_t)len;
}

static void
path_remove(PathSet *p, size_t i)
{
    size_t mask = p->cap - 1, j = i;
    p->slots[i].depth = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (p->slots[j].depth == 0)
            return;
        size_t home = (size_t)p->slots[j].hash & mask;
        /* move slot j back into the hole at i unless its home lies cyclically in (i, j] */
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        p->slots[i] = p->slots[j];
        p->slots[j].depth = 0;
        i = j;
    }
}

/* ---- the search object --------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    uint8_t quilt[CELLS];
    u64 nba[CELLS], nbb[CELLS]; /* the short-side neighbours' bits (0: none) */
    int wrap, persian, safe;
    int lds, depth_max, clock_every;
    long long tt_max;
    u64 salt; /* 0: the heuristic order; else that order perturbed (shuffle(), a restart's) */
    St root;
    Marks tt;
    PathSet path; /* Persian Rug: the keys of the current line (never cleared) */
    St *states;  /* states[k]: the position at depth k of the line */
    uint8_t (*keys)[KEYMAX];
    Mv *line;
    int depth; /* moves on the line */
    int wonlen; /* the moves of the winning line */
    Mv *moves; /* the children of every frame on the line, each frame's after its parent's */
    size_t nmoves, capmoves;
    long long nodes;
    int too_deep;
    PyObject *tick;
    uint8_t wanted[64]; /* card -> 1 (up wants it), 2 (down), 3 (both): set by foundation() */
    u64 hosts[64]; /* rule 7: the cards (a bit by code) that a card can be built onto */
    /* rule 7's worklist: the cells whose test may change when cell x empties (its cell is a
     * short-side neighbour of theirs), when card t may now go to a foundation (they hold it), when
     * card t is seen or comes to the waste's top (they can be built onto it) */
    u64 nbr_of[CELLS], card_cells[64], hosted_by[64];
    struct SuitSlot *suit_memo; /* rule 8: the suits' games' verdicts (suit_cap slots) */
    size_t suit_count, suit_cap;
    int joint_cap; /* rule 9: relaxations one test may run (0: the rule is off) */
    long long joint_after; /* rule 9 tests a position once this many nodes are spent below it */
    long long joint_after0, joint_after_max; /* where it starts and returns to, and its most */
} Core;

static inline u64
avail_mask(const Core *c, u64 occ)
{
    u64 out = 0, o = occ;
    while (o) {
        int x = __builtin_ctzll(o);
        o &= o - 1;
        u64 a = c->nba[x], b = c->nbb[x];
        if (!a || !(occ & a) || !b || !(occ & b))
            out |= (u64)1 << x;
    }
    return out;
}

static inline int
builds(const Core *c, int card, int below)
{
    if (card >> 4 != below >> 4)
        return 0;
    int a = card & 15, b = below & 15;
    if (a < 1 || a > 13 || b < 1 || b > 13)
        return 0;
    int gap = a > b ? a - b : b - a;
    return gap == 1 || (c->wrap && gap == 12);
}

static inline int
wanted_in(const Core *c, u64 cells)
{
    int n = 0;
    while (cells) {
        int x = __builtin_ctzll(cells);
        cells &= cells - 1;
        n += c->wanted[c->quilt[x]] != 0;
    }
    return n;
}

static int
make_key(const Core *c, const St *st, uint8_t *key)
{
    int n = 0;
    for (int i = 0; i < 8; i++)
        key[n++] = (uint8_t)(st->occ >> (8 * i));
    memcpy(key + n, st->up, 4);
    memcpy(key + n + 4, st->down, 4);
    n += 8;
    if (c->persian) {
        /* the reserves sorted (they are interchangeable), as bytes compare in Python */
        int order[NRES];
        for (int j = 0; j < NRES; j++) {
            int k = j;
            while (k > 0) {
                int o = order[k - 1];
                int m = st->rlen[o] < st->rlen[j] ? st->rlen[o] : st->rlen[j];
                int cmp = memcmp(st->res[o], st->res[j], m);
                if (cmp < 0 || (cmp == 0 && st->rlen[o] <= st->rlen[j]))
                    break;
                order[k] = o;
                k--;
            }
            order[k] = j;
        }
        for (int j = 0; j < NRES; j++) {
            if (j)
                key[n++] = 0xff;
            memcpy(key + n, st->res[order[j]], st->rlen[order[j]]);
            n += st->rlen[order[j]];
        }
        return n;
    }
    key[n++] = st->left;
    key[n++] = st->nw;
    memcpy(key + n, st->waste, st->nw);
    n += st->nw;
    memcpy(key + n, st->stock + st->ss, st->ns);
    return n + st->ns;
}

static inline int
won(const St *st)
{
    for (int s = 0; s < 4; s++)
        if (st->up[s] != 13 || st->down[s] != 1)
            return 0;
    return 1;
}

/* ---- rule 4 ------------------------------------------------------------------------------- */

static int
stuck(const St *st)
{
    uint8_t below[64];
    memset(below, 0, sizeof below);
    for (int i = 0; i < st->nw; i++) {
        int card = st->waste[i], s = card >> 4, r = card & 15;
        int u = st->up[s], d = st->down[s], ok = 0;
        if (u < r) {
            ok = 1;
            for (int k = u + 1; k < r && ok; k++)
                ok = 2 - (u >= k) - (d <= k) > below[s * 16 + k];
        }
        if (!ok && d > r) {
            ok = 1;
            for (int k = r + 1; k < d && ok; k++)
                ok = 2 - (u >= k) - (d <= k) > below[s * 16 + k];
        }
        if (!ok)
            return 1;
        below[card]++;
    }
    return 0;
}

/* ---- rule 6: the relaxation -------------------------------------------------------------- */

/* Fill rank r's slots (every foundation allowed to take it), then take the pool cards that the
 * chains reach, each extending them (solver._take_reached, and the run's inner loop). */
static inline void
fill_and_take(int r, int *pp, int *pu, int *pd, int *pum, int *pdm, int u0, int d0)
{
    int p = *pp, u = *pu, d = *pd, um = *pum, dm = *pdm;
    for (;;) {
        if (r > u0) {
            um |= 1 << r;
            while (um >> (u + 1) & 1)
                u++;
        }
        if (r < d0) {
            dm |= 1 << r;
            while (dm >> (d - 1) & 1)
                d--;
        }
        if (p >> (u + 1) & 1)
            r = u + 1;
        else if (p >> (d - 1) & 1)
            r = d - 1;
        else
            break;
        p &= ~(1 << r);
    }
    *pp = p, *pu = u, *pd = d, *pum = um, *pdm = dm;
}

/* The first step alone: take what the chains reach from the real heights. */
static inline void
take_reached(int *pp, int *pu, int *pd, int *pum, int *pdm, int u0, int d0)
{
    int p = *pp, u = *pu, d = *pd;
    int r;
    if (p >> (u + 1) & 1)
        r = u + 1;
    else if (p >> (d - 1) & 1)
        r = d - 1;
    else
        return;
    *pp = p & ~(1 << r);
    fill_and_take(r, pp, pu, pd, pum, pdm, u0, d0);
}

static inline u64
ok_bits(int u, int d, int u0, int d0)
{
    return (u64)((((2 << (u + 1)) - (2 << u0)) | ((1 << d0) - (1 << (d - 1)))) & 0x3FFE);
}

#ifdef RULE6_CHECK /* the search runs rule 7 instead (rules_fail); this build checks that it may */
static void
pool_of(const Core *c, u64 occ, int pool[4])
{
    pool[0] = pool[1] = pool[2] = pool[3] = 0;
    while (occ) {
        int x = __builtin_ctzll(occ);
        occ &= occ - 1;
        int card = c->quilt[x];
        pool[card >> 4] |= 1 << (card & 15);
    }
}

static int
relax_fails(const Core *c, const St *st)
{
    int pool[4], uh[4], dh[4], upm[4], dnm[4];
    u64 ok = 0;
    pool_of(c, st->occ, pool);
    for (int s = 0; s < 4; s++) {
        int u0 = st->up[s], d0 = st->down[s];
        uh[s] = u0;
        dh[s] = d0;
        upm[s] = (2 << u0) - 1;
        dnm[s] = 0x7FFF ^ ((1 << d0) - 1);
        take_reached(&pool[s], &uh[s], &dh[s], &upm[s], &dnm[s], u0, d0);
        ok |= ok_bits(uh[s], dh[s], u0, d0) << (16 * s);
    }
    uint8_t stack[2 * MAXP], tail[2 * MAXP];
    int ns = st->nw, nt = st->ns;
    memcpy(stack, st->waste, st->nw);
    memcpy(tail, st->stock + st->ss, st->ns);
    int passes = st->left + 1;
    for (;;) {
        for (int i = -1; i < nt; i++) {
            int card;
            if (i >= 0) {
                card = tail[i];
                if (!(ok >> card & 1)) {
                    stack[ns++] = (uint8_t)card;
                    continue;
                }
            }
            else if (!ns || !(ok >> stack[ns - 1] & 1))
                continue;
            else
                card = stack[--ns];
            for (;;) { /* card leaves: fill its slots, extend the chains, then the next top */
                int s = card >> 4;
                fill_and_take(card & 15, &pool[s], &uh[s], &dh[s], &upm[s], &dnm[s], st->up[s],
                              st->down[s]);
                int shift = 16 * s;
                ok = (ok & ~((u64)0xFFFF << shift)) | (ok_bits(uh[s], dh[s], st->up[s], st->down[s]) << shift);
                if (!ns || !(ok >> stack[ns - 1] & 1))
                    break;
                card = stack[--ns];
            }
        }
        passes--;
        if (!ns || !passes)
            break;
        memcpy(tail, stack, ns);
        nt = ns;
        ns = 0;
    }
    if (ns)
        return 1;
    for (int s = 0; s < 4; s++)
        if (pool[s] & ~(int)((ok >> (16 * s)) & 0xFFFF))
            return 1;
    return 0;
}

#endif

/* ---- rule 7: the relaxation with the quilt's geometry (solver.Search.geo_fails) ----------- */

typedef struct {
    int uh[4], dh[4], upm[4], dnm[4], pool[4];
    const uint8_t *up, *down;
    u64 ok;
} Geo;

static inline void
geo_take(Geo *g, int card)
{
    int s = card >> 4;
    fill_and_take(card & 15, &g->pool[s], &g->uh[s], &g->dh[s], &g->upm[s], &g->dnm[s], g->up[s],
                  g->down[s]);
    int shift = 16 * s;
    g->ok = (g->ok & ~((u64)0xFFFF << shift)) | (ok_bits(g->uh[s], g->dh[s], g->up[s], g->down[s]) << shift);
}

/* The cells that can be built onto one of cards (a bit by code). */
static inline u64
hosted(const Core *c, u64 cards)
{
    u64 w = 0;
    for (; cards; cards &= cards - 1)
        w |= c->hosted_by[__builtin_ctzll(cards)];
    return w;
}

/* geo_take, and the cells whose cards it lets go to a foundation now. */
static inline u64
geo_take_cells(const Core *c, Geo *g, int card)
{
    u64 before = g->ok, w = 0;
    geo_take(g, card);
    for (u64 now = g->ok & ~before; now; now &= now - 1)
        w |= c->card_cells[__builtin_ctzll(now)];
    return w;
}

static int
geo_fails(const Core *c, const St *st)
{
    Geo g;
    uint8_t seq[2 * MAXP];
    int stack[2 * MAXP], tail[2 * MAXP]; /* positions in seq, bottom first */
    int dealt[64], under[64];
    int nw = st->nw, n = st->nw + st->ns, ns = 0, nt = 0;
    memcpy(seq, st->waste, st->nw);
    memcpy(seq + st->nw, st->stock + st->ss, st->ns);
    g.up = st->up;
    g.down = st->down;
    g.ok = 0;
    for (int s = 0; s < 4; s++) {
        int u0 = st->up[s], d0 = st->down[s];
        g.uh[s] = u0;
        g.dh[s] = d0;
        g.upm[s] = (2 << u0) - 1;
        g.dnm[s] = 0x7FFF ^ ((1 << d0) - 1);
        g.pool[s] = 0;
        g.ok |= ok_bits(u0, d0, u0, d0) << (16 * s);
    }
    u64 o = st->occ, seen = 0, top_ok = 0;
    memset(dealt, 0, sizeof dealt);
    memset(under, 0, sizeof under);
    for (int i = 0; i < nw; i++) {
        stack[ns++] = i;
        dealt[seq[i]]++;
        if (i < nw - 1)
            under[seq[i]]++;
    }
    for (int i = 0; i < nw; i++)
        if (dealt[seq[i]] > under[seq[i]])
            top_ok |= (u64)1 << seq[i];
    int passes = st->left + 1, j = nw;
    for (int i = nw; i < n; i++)
        tail[nt++] = i;
    /* A drain empties cells to the fixed point, testing again only the cells whose test may have
     * changed since their last (work): a neighbour's cell emptied, their card now allowed on a
     * foundation, a card they can be built onto seen or come to the top. Every test only grows
     * true within a drain, so the fixed point is the one Python's sweeps of the whole quilt
     * reach, and so is the result. */
    u64 work = o;
    for (int k = -1;; k++) {
        if (k >= nt) {
            passes--;
            if (!ns || !passes)
                break;
            memcpy(tail, stack, ns * sizeof(int));
            nt = ns;
            ns = 0;
            memset(dealt, 0, sizeof dealt);
            memset(under, 0, sizeof under);
            top_ok = 0;
            j = 0;
            /* every card before the first one the relaxation holds may have been dealt (Python
             * drains here when there is one; the drain below is that one) */
            for (; j < tail[0]; j++) {
                dealt[seq[j]]++;
                top_ok |= (u64)1 << seq[j];
            }
            work |= hosted(c, top_ok);
            k = -1;
            goto drain;
        }
        if (k >= 0) { /* deal tail[k]: the cards before the next one held count as dealt */
            int pos = tail[k], limit = k + 1 < nt ? tail[k + 1] : n;
            u64 before = top_ok;
            for (; j < limit; j++) {
                int card = seq[j];
                if (++dealt[card] > under[card])
                    top_ok |= (u64)1 << card;
            }
            int card = seq[pos];
            work |= hosted(c, top_ok & ~before);
            if (g.ok >> card & 1) {
                work |= geo_take_cells(c, &g, card);
            }
            else {
                if (ns) {
                    int t = seq[stack[ns - 1]];
                    if (dealt[t] <= ++under[t])
                        top_ok &= ~((u64)1 << t);
                }
                stack[ns++] = pos;
            }
        }
    drain:
        for (;;) { /* drain: everything eagerly, to the fixed point */
            while ((work &= o)) {
                int x = __builtin_ctzll(work);
                u64 low = (u64)1 << x;
                work ^= low;
                u64 a = c->nba[x], b = c->nbb[x];
                if (a && (o & a) && b && (o & b))
                    continue; /* not available */
                int q = c->quilt[x];
                if (g.ok >> q & 1) {
                    o ^= low;
                    seen |= (u64)1 << q;
                    work |= c->nbr_of[x] | c->hosted_by[q] | geo_take_cells(c, &g, q);
                }
                else if (c->hosts[q] & (seen | top_ok)) {
                    o ^= low;
                    seen |= (u64)1 << q;
                    g.pool[q >> 4] |= 1 << (q & 15);
                    work |= c->nbr_of[x] | c->hosted_by[q];
                }
            }
            if (!ns || !(g.ok >> seq[stack[ns - 1]] & 1))
                break;
            int card = seq[stack[--ns]];
            if (ns) {
                int t = seq[stack[ns - 1]];
                under[t]--;
                if (!(top_ok >> t & 1))
                    work |= c->hosted_by[t];
                top_ok |= (u64)1 << t;
            }
            work |= geo_take_cells(c, &g, card);
        }
    }
    if (ns || o)
        return 1;
    for (int s = 0; s < 4; s++)
        if (g.pool[s] & ~(int)((g.ok >> (16 * s)) & 0xFFFF))
            return 1;
    return 0;
}

/* Search.geo_inherits: whether foundation move m's child passes rule 7 because st does (st
 * was entered, so it passed): m plays the last copy of its rank, and no card left in the quilt
 * can be built onto it. */
static inline int
geo_inherits(const Core *c, const St *st, const Mv *m)
{
    int card = m->src == WASTE_SRC ? st->waste[st->nw - 1] : c->quilt[m->src];
    int s = card >> 4, r = card & 15;
    u64 occ = m->src == WASTE_SRC ? st->occ : st->occ & ~((u64)1 << m->src);
    return !(st->up[s] < r && r < st->down[s]) && !(c->hosted_by[card] & occ);
}

/* ---- moves --------------------------------------------------------------------------------- */

static void
apply(const Core *c, const St *st, const Mv *m, St *out)
{
    /* copy only what the position uses */
    out->occ = st->occ;
    memcpy(out->up, st->up, 4);
    memcpy(out->down, st->down, 4);
    out->left = st->left;
    if (c->persian) {
        memcpy(out->rlen, st->rlen, NRES);
        for (int j = 0; j < NRES; j++)
            memcpy(out->res[j], st->res[j], st->rlen[j]);
    }
    else {
        out->nw = st->nw;
        out->ns = st->ns;
        out->ss = 0;
        memcpy(out->waste, st->waste, st->nw);
        memcpy(out->stock, st->stock + st->ss, st->ns);
    }
    switch (m->kind) {
    case 'f': {
        int s = m->dest & 3;
        if (m->dest < 4)
            out->up[s]++;
        else
            out->down[s]--;
        if (m->src == WASTE_SRC)
            out->nw--;
        else if (m->src >= RES_SRC)
            out->rlen[m->src - RES_SRC]--;
        else
            out->occ &= ~((u64)1 << m->src);
        break;
    }
    case 'b':
        out->occ &= ~((u64)1 << m->src);
        out->waste[out->nw++] = c->quilt[m->src];
        break;
    case 'd':
        out->waste[out->nw++] = out->stock[0];
        out->ss = 1;
        out->ns--;
        break;
    case 'r':
        memcpy(out->stock, out->waste, out->nw);
        out->ns = out->nw;
        out->nw = 0;
        out->left--;
        break;
    case 'R': {
        int card;
        if (m->src >= RES_SRC) {
            int j = m->src - RES_SRC;
            card = out->res[j][--out->rlen[j]];
        }
        else {
            card = c->quilt[m->src];
            out->occ &= ~((u64)1 << m->src);
        }
        out->res[m->dest][out->rlen[m->dest]++] = (uint8_t)card;
        break;
    }
    }
}

static int
push_move(Core *c, char kind, int src, int dest)
{
    if (c->nmoves == c->capmoves && grow_array((void **)&c->moves, &c->capmoves, sizeof(Mv), 4096) < 0)
        return -1;
    Mv *m = &c->moves[c->nmoves++];
    m->kind = kind;
    m->src = (int16_t)src;
    m->dest = (int8_t)dest;
    return 0;
}

/* Scores are tuples of small ints in Python; here one integer per move, compared the same way,
 * with the move's index last so that sorting is stable, as Python's sort is. */
static inline long long
score3(int a, int b, int cc, int index)
{
    return (((long long)(a + 1000) * 2000 + (b + 1000)) * 2000 + (cc + 1000)) * 4096 + index;
}

static int
cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* Sorts moves[from..from+n) by their scores (stable: the index is in the score). */
static int
sort_moves(Core *c, size_t from, int n, long long *scores)
{
    if (n < 2)
        return 0;
    Mv *tmp = PyMem_Malloc(n * sizeof(Mv));
    if (tmp == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(tmp, c->moves + from, n * sizeof(Mv));
    qsort(scores, n, sizeof(long long), cmp_ll);
    for (int i = 0; i < n; i++)
        c->moves[from + i] = tmp[scores[i] & 4095];
    PyMem_Free(tmp);
    return 0;
}

/* Search.shuffled: a restart's order. Each neighbouring pair of children, from the first, is
 * swapped when two bits of an xorshift stream are 0, the stream seeded by the position's key
 * hash and the salt, so a position has the same order each time it is entered. */
static void
shuffle(Mv *moves, int n, u64 h, u64 salt)
{
    u64 x = h ^ (salt * 0x9E3779B97F4A7C15ULL);
    if (x == 0)
        x = 1;
    for (int i = 0; i + 1 < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if ((x & 3) == 0) {
            Mv t = moves[i];
            moves[i] = moves[i + 1];
            moves[i + 1] = t;
        }
    }
}

/* Foundation moves of the (source, card) pairs, pushed; *safe is set to the index of a safe
 * one (rules 1 and 2), then the only move, or -1. Sets c->wanted. */
static int
foundation(Core *c, const St *st, const int *srcs, const int *cards, int n, int *safe)
{
    memset(c->wanted, 0, sizeof c->wanted);
    for (int s = 0; s < 4; s++) {
        if (st->up[s] < 13)
            c->wanted[s * 16 + st->up[s] + 1] = 1;
        if (st->down[s] > 1)
            c->wanted[s * 16 + st->down[s] - 1] |= 2;
    }
    *safe = -1;
    uint8_t pairs[64];
    memset(pairs, 0, sizeof pairs);
    for (int i = 0; i < n; i++) {
        int card = cards[i], w = c->wanted[card];
        if (!w)
            continue;
        int s = card >> 4, r = card & 15;
        if (w & 1) {
            if (c->safe && st->down[s] <= r) {
                *safe = s;
                return push_move(c, 'f', srcs[i], s);
            }
            if (push_move(c, 'f', srcs[i], s) < 0)
                return -1;
        }
        if (w & 2) {
            if (c->safe && st->up[s] >= r) {
                *safe = 4 + s;
                return push_move(c, 'f', srcs[i], 4 + s);
            }
            if (push_move(c, 'f', srcs[i], 4 + s) < 0)
                return -1;
        }
        if (w == 3 && c->safe) {
            if (pairs[card]) {
                *safe = s;
                return push_move(c, 'f', srcs[i], s);
            }
            pairs[card] = 1;
        }
    }
    return 0;
}

/* The children of st, pushed onto c->moves from its current end, in the heuristic order; their
 * number, or -1. */
static int
children(Core *c, const St *st)
{
    size_t base = c->nmoves;
    int srcs[CELLS + NRES], cards[CELLS + NRES], n = 0, safe;
    u64 av = avail_mask(c, st->occ);
    if (c->persian) {
        for (int j = 0; j < NRES; j++)
            if (st->rlen[j]) {
                srcs[n] = RES_SRC + j;
                cards[n++] = st->res[j][st->rlen[j] - 1];
            }
    }
    else if (st->nw) {
        srcs[n] = WASTE_SRC;
        cards[n++] = st->waste[st->nw - 1];
    }
    for (u64 o = av; o; o &= o - 1) {
        int x = __builtin_ctzll(o);
        srcs[n] = x;
        cards[n++] = c->quilt[x];
    }
    if (foundation(c, st, srcs, cards, n, &safe) < 0)
        return -1;
    if (safe >= 0) {
        c->moves[base] = c->moves[c->nmoves - 1];
        c->nmoves = base + 1;
        return 1;
    }
    int nplays = (int)(c->nmoves - base);
    int cap = nplays + 64 * NRES + 2 * CELLS + NRES * NRES + 4;
    long long *scores = PyMem_Malloc(cap * sizeof(long long));
    if (scores == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int avn = __builtin_popcountll(av);
    for (int i = 0; i < nplays; i++) {
        Mv *m = &c->moves[base + i];
        if (c->persian) {
            int a = m->src >= RES_SRC ? -99
                    : -(__builtin_popcountll(avail_mask(c, st->occ & ~((u64)1 << m->src))) - avn + 1);
            scores[i] = score3(a, 0, 0, i);
        }
        else if (m->src == WASTE_SRC)
            scores[i] = score3(-99, 0, 0, i);
        else {
            u64 nw = avail_mask(c, st->occ & ~((u64)1 << m->src)) & ~av;
            scores[i] = score3(-wanted_in(c, nw), -__builtin_popcountll(nw), 0, i);
        }
    }
    if (sort_moves(c, base, nplays, scores) < 0)
        goto fail;
    if (!c->persian) {
        /* builds: those that free a cell (sorted), then the others; then the deal or redeal */
        Mv other[CELLS];
        int nother = 0, nfree = 0;
        size_t fbase = c->nmoves;
        if (st->nw) {
            int top = st->waste[st->nw - 1];
            for (u64 o = av; o; o &= o - 1) {
                int x = __builtin_ctzll(o);
                if (!builds(c, c->quilt[x], top))
                    continue;
                u64 nw = avail_mask(c, st->occ & ~((u64)1 << x)) & ~av;
                if (nw) {
                    scores[nfree] = score3(-wanted_in(c, nw), -__builtin_popcountll(nw), 0, nfree);
                    nfree++;
                    if (push_move(c, 'b', x, 0) < 0)
                        goto fail;
                }
                else {
                    other[nother].kind = 'b';
                    other[nother].src = (int16_t)x;
                    other[nother++].dest = 0;
                }
            }
            if (sort_moves(c, fbase, nfree, scores) < 0)
                goto fail;
        }
        Mv turn;
        int nturn = 0;
        if (st->ns) {
            turn.kind = 'd';
            nturn = 1;
        }
        else if (st->nw && st->left > 0) {
            turn.kind = 'r';
            nturn = 1;
        }
        turn.src = 0;
        turn.dest = 0;
        if (st->left > 0) {
            if (nturn && push_move(c, turn.kind, 0, 0) < 0)
                goto fail;
            for (int i = 0; i < nother; i++)
                if (push_move(c, 'b', other[i].src, 0) < 0)
                    goto fail;
        }
        else {
            /* the deal goes before the builds: move the sorted builds up one */
            for (int i = 0; i < nother; i++)
                if (push_move(c, 'b', other[i].src, 0) < 0)
                    goto fail;
            if (nturn) {
                if (push_move(c, 'd', 0, 0) < 0)
                    goto fail;
                memmove(c->moves + fbase + 1, c->moves + fbase, (c->nmoves - 1 - fbase) * sizeof(Mv));
                c->moves[fbase] = turn;
            }
        }
        PyMem_Free(scores);
        return (int)(c->nmoves - base);
    }
    /* Persian Rug: onto non-empty reserves, onto the first empty one, reserve to reserve */
    int empty = -1;
    for (int j = 0; j < NRES; j++)
        if (!st->rlen[j]) {
            empty = j;
            break;
        }
    size_t rbase = c->nmoves;
    int nr = 0;
    for (int group = 0; group < 2; group++) {
        for (u64 o = av; o; o &= o - 1) {
            int x = __builtin_ctzll(o), card = c->quilt[x];
            u64 nw = avail_mask(c, st->occ & ~((u64)1 << x)) & ~av;
            int a = -wanted_in(c, nw), cc = -__builtin_popcountll(nw);
            if (group == 0) {
                for (int j = 0; j < NRES; j++)
                    if (st->rlen[j] && builds(c, card, st->res[j][st->rlen[j] - 1])) {
                        scores[nr] = score3(a, 0, cc, nr);
                        nr++;
                        if (push_move(c, 'R', x, j) < 0)
                            goto fail;
                    }
            }
            else if (empty >= 0) {
                scores[nr] = score3(a, 1, cc, nr);
                nr++;
                if (push_move(c, 'R', x, empty) < 0)
                    goto fail;
            }
        }
    }
    for (int j = 0; j < NRES; j++) {
        int len = st->rlen[j];
        if (!len)
            continue;
        int card = st->res[j][len - 1];
        int shows = len > 1 && c->wanted[st->res[j][len - 2]];
        for (int k = 0; k < NRES; k++) {
            if (k == j || (!st->rlen[k] && (k != empty || len == 1)))
                continue;
            if (st->rlen[k] && !builds(c, card, st->res[k][st->rlen[k] - 1]))
                continue;
            scores[nr] = score3(-shows, 2, 0, nr);
            nr++;
            if (push_move(c, 'R', RES_SRC + j, k) < 0)
                goto fail;
        }
    }
    if (sort_moves(c, rbase, nr, scores) < 0)
        goto fail;
    PyMem_Free(scores);
    return (int)(c->nmoves - base);
fail:
    PyMem_Free(scores);
    return -1;
}

/* ---- the search ----------------------------------------------------------------------------- */

static int
clear_if_full(Core *c)
{
    if ((long long)c->tt.table.count >= c->tt_max)
        table_clear(&c->tt.table);
    return 0;
}

/* ---- rule 8: a suit's own game (solver.suit_won, Search.suit_fails) ------------------------
 * The game of one suit: its cards of the waste and stock as ranks (seq, the waste's first k),
 * its quilt cards a pool (two bits a rank), its foundations' heights u and d, the redeals left.
 * Searched to the end with a memo of verdicts, which are the game's own (so kept across
 * positions, and cleared when the memo is half full: that only repeats work). The same verdict
 * as solver.suit_won, which is all the search sees of it. */

/* The memo starts at 2^17 slots of 32 bytes and doubles, each time it is half full, up to 2^22
 * (128 MB); then it is cleared when half full. With 2^17 for good, a hard deal's memo was cleared
 * every few thousand nodes and rule 8 took 38% of the core's time recomputing the same suits'
 * games (deal 175 at one redeal, 1,000,000 nodes: 10.9 CPU s; 5.2 with 2^21). With 2^21 from
 * the start, hint's many short searches each paid for touching a fresh 64 MB table, and
 * answered less within its second (docs/crazy-quilt-solver.md). The verdicts are the same
 * whatever the size, so the search is too. Up to 2^22, not 2^21: in deal 722 a suit's games
 * filled 2^21 again and again, and rule 8 took 75% of the core's time (624,220 nodes to its win:
 * 10.7 CPU s with 2^21, 4.1 with 2^22, 3.6 with 2^23 at twice the memory). Python's memo keeps
 * up to SUIT_MEMO_MAX entries. */
#define SUIT_CAP_MIN (1 << 17)
#define SUIT_CAP (1 << 22)
#define SUIT_PASSES_MAX 30

typedef struct SuitSlot {
    /* the key: ranks 0-15; ranks 16-23, the counts and bit 63 (b == 0: an empty slot); the pool */
    u64 a, b, p;
    uint8_t won;
} SuitSlot;

static inline size_t
suit_hash(u64 a, u64 b, u64 p)
{
    u64 h = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ (p * 0x165667B19E3779F9ULL);
    return (size_t)(h ^ (h >> 31));
}

/* Room for one more entry: the memo doubled while it may grow (or if that fails, cleared), else
 * cleared, when it is half full. */
static void
suit_room(Core *c)
{
    if (c->suit_count < c->suit_cap / 2)
        return;
    size_t cap = c->suit_cap * 2;
    SuitSlot *slots = cap <= SUIT_CAP ? PyMem_Calloc(cap, sizeof(SuitSlot)) : NULL;
    if (slots == NULL) {
        memset(c->suit_memo, 0, c->suit_cap * sizeof(SuitSlot));
        c->suit_count = 0;
        return;
    }
    for (size_t i = 0; i < c->suit_cap; i++) {
        SuitSlot *sl = &c->suit_memo[i];
        if (!sl->b)
            continue;
        size_t j = suit_hash(sl->a, sl->b, sl->p) & (cap - 1);
        while (slots[j].b)
            j = (j + 1) & (cap - 1);
        slots[j] = *sl;
    }
    PyMem_Free(c->suit_memo);
    c->suit_memo = slots;
    c->suit_cap = cap;
}

static int
suit_won(Core *c, const uint8_t *seq0, int n, int k, u64 pool, int u, int d, int left)
{
    u64 a = 0, b = 0;
    for (int i = 0; i < n; i++) {
        if (i < 16)
            a |= (u64)seq0[i] << (4 * i);
        else
            b |= (u64)seq0[i] << (4 * (i - 16));
    }
    b |= (u64)n << 32 | (u64)k << 37 | (u64)u << 42 | (u64)d << 46 | (u64)left << 50 | (u64)1 << 63;
    const u64 pool_key = pool;
    size_t h = suit_hash(a, b, pool), mask = c->suit_cap - 1, i = h & mask;
    for (;;) {
        SuitSlot *sl = &c->suit_memo[i];
        if (!sl->b)
            break;
        if (sl->a == a && sl->b == b && sl->p == pool)
            return sl->won;
        i = (i + 1) & mask;
    }
    uint8_t seq[32];
    memcpy(seq, seq0, (size_t)n);
    /* a card whose one destination wants it is played at once (as in solver.suit_won) */
    for (;;) {
        if (u < 13 && d <= u + 1 && (pool >> (2 * (u + 1)) & 3)) {
            pool -= (u64)1 << (2 * (u + 1));
            u++;
        }
        else if (d > 1 && u >= d - 1 && (pool >> (2 * (d - 1)) & 3)) {
            pool -= (u64)1 << (2 * (d - 1));
            d--;
        }
        else if (k && seq[k - 1] == u + 1 && d <= u + 1) {
            memmove(seq + k - 1, seq + k, (size_t)(n - k));
            n--, k--, u++;
        }
        else if (k && seq[k - 1] == d - 1 && u >= d - 1) {
            memmove(seq + k - 1, seq + k, (size_t)(n - k));
            n--, k--, d--;
        }
        else
            break;
    }
    int won = u == 13 && d == 1;
    if (!won && k) {
        int t = seq[k - 1];
        if (t == u + 1 || t == d - 1) {
            uint8_t rest[32];
            memcpy(rest, seq, (size_t)(k - 1));
            memcpy(rest + k - 1, seq + k, (size_t)(n - k));
            won = (t == u + 1 && suit_won(c, rest, n - 1, k - 1, pool, u + 1, d, left))
                  || (t == d - 1 && suit_won(c, rest, n - 1, k - 1, pool, u, d - 1, left));
        }
    }
    if (!won && u < 13 && (pool >> (2 * (u + 1)) & 3))
        won = suit_won(c, seq, n, k, pool - ((u64)1 << (2 * (u + 1))), u + 1, d, left);
    if (!won && d > 1 && (pool >> (2 * (d - 1)) & 3))
        won = suit_won(c, seq, n, k, pool - ((u64)1 << (2 * (d - 1))), u, d - 1, left);
    if (!won && k < n)
        won = suit_won(c, seq, n, k + 1, pool, u, d, left);
    else if (!won && k && left)
        won = suit_won(c, seq, n, 0, pool, u, d, left - 1);
    suit_room(c); /* the recursion above may have grown or cleared the memo */
    mask = c->suit_cap - 1;
    i = h & mask;
    while (c->suit_memo[i].b)
        i = (i + 1) & mask;
    c->suit_memo[i] = (SuitSlot){a, b, pool_key, (uint8_t)won};
    c->suit_count++;
    return won;
}

/* Search.suit_fails: some suit's game cannot be won. */
static int
suit_fails(Core *c, const St *st)
{
    uint8_t seq[4][32];
    int n[4] = {0, 0, 0, 0}, k[4];
    u64 pool[4] = {0, 0, 0, 0};
    for (int i = 0; i < st->nw; i++) {
        int card = st->waste[i], s = card >> 4;
        if (n[s] >= 24)
            return 0; /* not a position of the game (a suit has 24 cards besides its bases) */
        seq[s][n[s]++] = (uint8_t)(card & 15);
    }
    for (int s = 0; s < 4; s++)
        k[s] = n[s];
    for (int i = 0; i < st->ns; i++) {
        int card = st->stock[st->ss + i], s = card >> 4;
        if (n[s] >= 24)
            return 0;
        seq[s][n[s]++] = (uint8_t)(card & 15);
    }
    for (u64 o = st->occ; o;) {
        int x = __builtin_ctzll(o);
        o &= o - 1;
        int card = c->quilt[x];
        pool[card >> 4] += (u64)1 << (2 * (card & 15));
    }
    int left = st->left < SUIT_PASSES_MAX ? st->left : SUIT_PASSES_MAX;
    for (int s = 0; s < 4; s++)
        if (!suit_won(c, seq[s], n[s], k[s], pool[s], st->up[s], st->down[s], left))
            return 1;
    return 0;
}

/* ---- rule 9: the joint game of the suits (Search.joint_fails) ------------------------------ */

/* The cards of a position as instances, as in Python: the waste (bottom first), the stock (top
 * first), then the quilt's cards in the order of their cells. */
#define JN (MAXP + CELLS)
#define JOINT_DEPTH 64 /* pairs fixed on one branch; deeper is undecided (as in Python) */

typedef struct {
    int n, nw, np; /* cards of the waste and stock, of them on the waste, quilt cards */
    uint8_t code[JN];
    int16_t twin[JN];
    uint8_t up[4], down[4];
    int left;
    int count;                 /* relaxations run for branches (the cap counts these) */
    uint8_t suit[JOINT_DEPTH]; /* the suit of the pair fixed at each depth of the branch */
    /* What joint_relax starts from with nothing fixed, made once per test (joint_base): each
     * relaxation of the test copies it and patches the few cards a branch has fixed, instead of
     * making it again from every card (a third of rule 9's time on deal 982). */
    uint8_t allow0[JN];
    u64 by0[8][16];
    u64 ready0;
} Joint;

/* Whether card c, allowed on the foundations of a, may leave in joint_relax: an allowed
 * foundation's height (up: hu, down: hd) has reached or passed its slot. */
static inline int
joint_leaves(int c, int a, int hu, int hd)
{
    int s = c >> 4, r = c & 15;
    return (a >> s & 1 && hu >= r - 1) || (a >> (4 + s) & 1 && hd <= r + 1);
}

/* The ready bit of quilt card k (instance i), as joint_relax sets it at the start. */
static inline u64
joint_ready_bit(const Joint *j, int i, int k, int a)
{
    int s = j->code[i] >> 4;
    return joint_leaves(j->code[i], a, j->up[s], j->down[s]) ? (u64)1 << k : 0;
}

/* joint_relax's start with no foundation fixed: a card is allowed on a foundation of its suit
 * that is below its rank's slot; by0 and ready0 as joint_relax makes them from that. */
static void
joint_base(Joint *j)
{
    memset(j->by0, 0, sizeof j->by0);
    j->ready0 = 0;
    for (int i = 0; i < j->n + j->np; i++) {
        int c = j->code[i], s = c >> 4, r = c & 15, a = 0;
        if (r > j->up[s])
            a |= 1 << s;
        if (r < j->down[s])
            a |= 1 << (4 + s);
        j->allow0[i] = (uint8_t)a;
        if (i >= j->n) {
            int k = i - j->n;
            if (a >> s & 1)
                j->by0[s][r] |= (u64)1 << k;
            if (a >> (4 + s) & 1)
                j->by0[4 + s][r] |= (u64)1 << k;
            j->ready0 |= joint_ready_bit(j, i, k, a);
        }
    }
}

/* Search.joint_relax: rule 6 over the instances with some foundations fixed (dest[i] >= 0). 0:
 * cards remain; -1: all cleared with no card filling two slots; else 1 + the first card that
 * did. Its order of takes (which decides the card it names) is Python's: the quilt card of the
 * lowest index that may leave, else the waste top. */
static int
joint_relax(const Joint *j, const int8_t *dest)
{
    int N = j->n + j->np;
    /* The start with nothing fixed, then the fixed cards: one allowed on its own foundation
     * only, and its twin, when not fixed itself, no longer allowed there (Python's `fixed`: a
     * code has two instances at most). Fixed cards are few (two a pair), so the rest is copied. */
    uint8_t allow[JN];
    u64 by[8][16];
    memcpy(allow, j->allow0, (size_t)N);
    memcpy(by, j->by0, sizeof by);
    u64 ready = j->ready0;
    int16_t touched[2 * JN];
    int nt0 = 0;
    for (int i = 0; i < N; i++) {
        if (dest[i] < 0)
            continue;
        allow[i] = (uint8_t)(1 << dest[i]);
        touched[nt0++] = (int16_t)i;
        int y = j->twin[i];
        if (y >= 0 && dest[y] < 0) {
            allow[y] &= (uint8_t)~(1 << dest[i]);
            touched[nt0++] = (int16_t)y;
        }
    }
    for (int t = 0; t < nt0; t++) { /* the quilt cards among them: their bits again */
        int i = touched[t];
        if (i < j->n)
            continue;
        int k = i - j->n, c = j->code[i], s = c >> 4, r = c & 15;
        u64 b = (u64)1 << k;
        by[s][r] = (by[s][r] & ~b) | (allow[i] >> s & 1 ? b : 0);
        by[4 + s][r] = (by[4 + s][r] & ~b) | (allow[i] >> (4 + s) & 1 ? b : 0);
        ready = (ready & ~b) | joint_ready_bit(j, i, k, allow[i]);
    }
    int h[8];
    unsigned filled[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int s = 0; s < 4; s++) {
        h[s] = j->up[s];
        h[4 + s] = j->down[s];
    }
    u64 gone = 0;
    int first = -1;
    int16_t stack[JN], tail[JN];
    int sp = 0, nt = 0;
    for (int i = 0; i < j->nw; i++)
        stack[sp++] = (int16_t)i;
    for (int i = j->nw; i < j->n; i++)
        tail[nt++] = (int16_t)i;
    int passes = j->left + 1;
    for (int t = -1;;) {
        if (t >= 0)
            stack[sp++] = tail[t]; /* a deal */
        for (;;) {                 /* drain: the lowest quilt card that may leave, else the top */
            int i;
            u64 rd = ready & ~gone;
            if (rd) {
                int k = __builtin_ctzll(rd);
                gone |= (u64)1 << k;
                i = j->n + k;
            }
            else if (sp) {
                i = stack[sp - 1];
                int s = j->code[i] >> 4;
                if (!joint_leaves(j->code[i], allow[i], h[s], h[4 + s]))
                    break;
                sp--;
            }
            else
                break;
            int c = j->code[i], s = c >> 4, r = c & 15, a = allow[i];
            if (a >> s & 1) {
                filled[s] |= 1u << r;
                while (filled[s] >> (h[s] + 1) & 1) {
                    h[s]++;
                    ready |= by[s][h[s] + 1];
                }
            }
            if (a >> (4 + s) & 1) {
                filled[4 + s] |= 1u << r;
                while (h[4 + s] > 1 && filled[4 + s] >> (h[4 + s] - 1) & 1) {
                    h[4 + s]--;
                    ready |= by[4 + s][h[4 + s] - 1];
                }
            }
            if (first < 0 && (a >> s & 1) && (a >> (4 + s) & 1))
                first = i;
        }
        if (++t == nt) { /* the stock is out: turn the relaxed waste over while redeals are left */
            if (!sp || !--passes)
                break;
            memcpy(tail, stack, (size_t)sp * sizeof(int16_t));
            nt = sp;
            sp = 0;
            t = 0;
        }
    }
    if (sp || gone != (j->np == 64 ? ~(u64)0 : ((u64)1 << j->np) - 1))
        return 0;
    return first < 0 ? -1 : 1 + first;
}

/* Search.joint_node: 1 won, 0 lost (*conf: the depths of the branch's pairs its failure needs),
 * -1 past the cap or the depth. */
static int
joint_node(Joint *j, const int8_t *dest, int cap, int depth, u64 *conf)
{
    if (++j->count > cap)
        return -1;
    int N = j->n + j->np;
    int got = joint_relax(j, dest);
    if (got < 0)
        return 1;
    if (got == 0) {
        /* the suits whose fixed pairs the failure needs: each suit's dropped in turn, kept
         * dropped while the relaxation still fails */
        int8_t d[JN];
        memcpy(d, dest, (size_t)N);
        int need = 0, kept = 0; /* kept: the suits with fixed pairs in d */
        for (int k = 0; k < depth; k++)
            kept |= 1 << j->suit[k];
        for (int t = 0; t < 4; t++) {
            if (!(kept >> t & 1))
                continue;
            for (int i = 0; i < N; i++)
                if (d[i] >= 0 && j->code[i] >> 4 == t)
                    d[i] = -1;
            kept &= ~(1 << t);
            /* Two cases pass without being run. With no pair left d is the test's first
             * relaxation, which cleared its cards (or the test would have ended there). With the
             * suit of this branch's own pair dropped, d fixes no card that the parent's
             * relaxation, which cleared its cards too, left free (the parent's pairs are this
             * branch's less its own), and a relaxation that fixes fewer cards allows each card
             * at least the foundations it allowed, so it takes at least the cards it took (rule
             * 6's eager run: a take never stops another). Built with -DJOINT_CHECK (CFLAGS), the
             * core runs them all the same and aborts where one fails: it ran the core's tests and
             * deals 175, 256, 982 and 993 without one. */
            int passes = !kept || (depth > 0 && t == j->suit[depth - 1]);
#ifdef JOINT_CHECK
            if (passes && joint_relax(j, d) == 0)
                abort();
#endif
            if (!passes && joint_relax(j, d) == 0)
                continue;
            kept |= 1 << t;
            need |= 1 << t;
            for (int i = 0; i < N; i++)
                if (j->code[i] >> 4 == t)
                    d[i] = dest[i];
        }
        u64 m = 0;
        for (int k = 0; k < depth; k++)
            if (need >> j->suit[k] & 1)
                m |= (u64)1 << k;
        *conf = m;
        return 0;
    }
    if (depth >= JOINT_DEPTH)
        return -1;
    int x = got - 1, y = j->twin[x], s = j->code[x] >> 4;
    j->suit[depth] = (uint8_t)s;
    int8_t d[JN];
    u64 acc = 0;
    for (int a = s; a <= 4 + s; a += 4) {
        memcpy(d, dest, (size_t)N);
        d[x] = (int8_t)a;
        d[y] = (int8_t)(a == s ? 4 + s : s);
        u64 cc = 0;
        int r = joint_node(j, d, cap, depth + 1, &cc);
        if (r != 0)
            return r;
        if (!(cc >> depth & 1)) { /* the failure holds whichever way this pair goes */
            *conf = cc;
            return 0;
        }
        acc |= cc;
        if (x >= j->n && y >= j->n) /* both in the quilt: the other way round is the same */
            break;
    }
    *conf = acc & ~((u64)1 << depth);
    return 0;
}

/* Search.joint_fails: rule 9 proves the position lost. */
static int
joint_fails(Core *c, const St *st)
{
    if (!c->joint_cap)
        return 0;
    Joint j;
    int n = 0;
    for (int i = 0; i < st->nw; i++)
        j.code[n++] = st->waste[i];
    for (int i = 0; i < st->ns; i++)
        j.code[n++] = st->stock[st->ss + i];
    j.nw = st->nw;
    j.n = n;
    for (u64 o = st->occ; o;) {
        int x = __builtin_ctzll(o);
        o &= o - 1;
        j.code[n++] = c->quilt[x];
    }
    j.np = n - j.n;
    int16_t seen[64];
    for (int k = 0; k < 64; k++)
        seen[k] = -1;
    for (int i = 0; i < n; i++) {
        int cd = j.code[i];
        j.twin[i] = -1;
        if (seen[cd] >= 0) {
            j.twin[i] = seen[cd];
            j.twin[seen[cd]] = (int16_t)i;
        }
        else
            seen[cd] = (int16_t)i;
    }
    memcpy(j.up, st->up, 4);
    memcpy(j.down, st->down, 4);
    j.left = st->left;
    j.count = 0;
    joint_base(&j);
    int8_t dest[JN];
    memset(dest, -1, (size_t)n);
    u64 conf;
    return joint_node(&j, dest, c->joint_cap, 0, &conf) == 0;
}

/* Rules 4, 7 and 8 on a non-Persian position (geo_ok: rule 7 is known to pass). Rule 7 proves
 * lost every position rule 6 proves lost (its run takes no card rule 6's does not: the module
 * docstring), so rule 6 is not run here, as Search.rules_fail does not run it while rule 7 is on. Rule 6 was an eighth of the
 * search's time and proved a tenth of the positions it saw, each of which rule 7 proves too.
 * Built with -DRULE6_CHECK (CFLAGS), the core runs rule 6 as well and aborts where it proves a
 * position that rule 7 passes. */
static inline int
rules_fail(Core *c, const St *st, int geo_ok)
{
#ifdef RULE6_CHECK
    if (relax_fails(c, st) && !geo_fails(c, st)) {
        fprintf(stderr, "RULE6_CHECK: rule 6 proves a position rule 7 passes\n");
        abort();
    }
#endif
    return (st->left == 0 && st->nw && stuck(st)) || (!geo_ok && geo_fails(c, st)) || suit_fails(c, st);
}

/* Search.dead: whether st is proven lost by the table or by rules 4, 7 and 8 (marked so).
 * st's key is left in key, its length and hash in *plen and *ph: the child's dfs, entered next
 * when st is not dead, takes them instead of making them again. */
static int
dead(Core *c, const St *st, int geo_ok, int *out, uint8_t *key, int *plen, u64 *ph)
{
    int len = make_key(c, st, key);
    u64 h = key_hash(key, len);
    *plen = len;
    *ph = h;
    int mark = mark_get(&c->tt, key, len, h);
    if (mark == PROVEN) {
        *out = 1;
        return 0;
    }
    if (mark >= 0) {
        *out = 0;
        return 0;
    }
    *out = rules_fail(c, st, geo_ok);
    clear_if_full(c);
    if (mark_set(&c->tt, key, len, h, *out ? PROVEN : CHECKED) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* klen, kh: the length and hash of st's key, already in c->keys[depth] (from dead()); klen 0:
 * none yet. */
static int
dfs(Core *c, int d, int geo_ok, int klen, u64 kh)
{
    int k = c->depth;
    St *st = &c->states[k];
    c->nodes++;
    long long start = c->nodes; /* rule 9's trigger counts the nodes spent below st */
    int tested = !c->joint_cap || c->persian;
    if (c->nodes % c->clock_every == 0 && tick_call(c->tick, c->nodes) < 0)
        return R_ERROR;
    if (won(st)) {
        c->wonlen = k;
        return R_WON;
    }
    if (k >= c->depth_max) {
        c->too_deep = 1; /* the unlimited iteration cannot prove a loss past this */
        return R_CUT;
    }
    uint8_t *key = c->keys[k];
    int len = klen;
    u64 h = kh;
    if (!len) {
        len = make_key(c, st, key);
        h = key_hash(key, len);
    }
    int mark = mark_get(&c->tt, key, len, h);
    if (mark >= d || (c->persian && path_find(&c->path, c->keys, key, len, h) >= 0))
        return mark != PROVEN ? R_CUT : 0;
    clear_if_full(c);
    if (mark_set(&c->tt, key, len, h, d) < 0)
        goto nomem;
    if (mark == ABSENT && !c->persian && rules_fail(c, st, geo_ok)) {
        if (mark_set(&c->tt, key, len, h, PROVEN) < 0)
            goto nomem;
        return 0;
    }
    size_t base = c->nmoves;
    int n = children(c, st);
    if (n < 0)
        return R_ERROR;
    if (c->salt && n > 1)
        shuffle(c->moves + base, n, h, c->salt);
    int check = !c->persian && n > 1;
    int live = 0, incomplete = 0, result = 0;
    if (c->persian)
        path_add(&c->path, k, len, h); /* not on the line already (checked above) */
    St *next = &c->states[k + 1];
    for (int i = 0; i < n; i++) {
        Mv m = c->moves[base + i];
        int cost = live;
        if (cost > d) {
            incomplete = 1;
            break;
        }
        int kid_geo_ok = !c->persian && m.kind == 'f' && geo_inherits(c, st, &m);
        apply(c, st, &m, next);
        int kid_len = 0;
        u64 kid_hash = 0;
        if (check) {
            int is_dead;
            if (dead(c, next, kid_geo_ok, &is_dead, c->keys[k + 1], &kid_len, &kid_hash) < 0) {
                result = R_ERROR;
                break;
            }
            if (is_dead)
                continue;
        }
        live++;
        c->line[k] = m;
        c->depth = k + 1;
        int got = dfs(c, d < INF ? d - cost : INF, kid_geo_ok, kid_len, kid_hash);
        c->depth = k;
        if (got < 0) {
            result = R_ERROR;
            break;
        }
        if (got & R_WON) {
            result = R_WON;
            break;
        }
        if (got & R_CUT)
            incomplete = 1;
        /* Rule 9 is dear (up to joint_cap relaxations), so it is spent only on a position that
         * has already cost joint_after nodes: its proof saves the rest of the subtree and every
         * later iteration's. */
        if (!tested && c->nodes - start >= c->joint_after) {
            tested = 1;
            Slot *s = mark_slot(&c->tt, key, len, h);
            if (s->off && s->joint_passed)
                continue; /* tested in an earlier entry */
            if (joint_fails(c, st)) {
                c->joint_after = c->joint_after0;
                incomplete = 0;
                break;
            }
            c->joint_after += c->joint_after / 4;
            if (c->joint_after > c->joint_after_max)
                c->joint_after = c->joint_after_max;
            if (s->off) /* not if the table was cleared below: the flag is its entry's */
                s->joint_passed = 1;
        }
    }
    c->nmoves = base;
    if (c->persian)
        path_remove(&c->path, (size_t)path_find(&c->path, c->keys, key, len, h));
    if (result)
        return result;
    if (!incomplete) {
        if (mark_set(&c->tt, key, len, h, PROVEN) < 0)
            goto nomem;
        return 0;
    }
    return R_CUT;
nomem:
    PyErr_NoMemory();
    return R_ERROR;
}

/* ---- the Python type ------------------------------------------------------------------------ */

static void
Core_dealloc(Core *c)
{
    table_free(&c->tt.table);
    PyMem_Free(c->suit_memo);
    PyMem_Free(c->path.slots);
    PyMem_Free(c->states);
    PyMem_Free(c->keys);
    PyMem_Free(c->line);
    PyMem_Free(c->moves);
    Py_XDECREF(c->tick);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int
read_pile(PyObject *obj, uint8_t *out, uint8_t *len, const char *what)
{
    Py_buffer b;
    if (PyObject_GetBuffer(obj, &b, PyBUF_SIMPLE) < 0)
        return -1;
    if (b.len > MAXP - 8) {
        PyBuffer_Release(&b);
        PyErr_Format(PyExc_ValueError, "%s: too many cards", what);
        return -1;
    }
    memcpy(out, b.buf, b.len);
    *len = (uint8_t)b.len;
    PyBuffer_Release(&b);
    for (int i = 0; i < *len; i++)
        if (out[i] < 1 || out[i] >= 64 || (out[i] & 15) > 13) {
            PyErr_Format(PyExc_ValueError, "%s: not a card code", what);
            return -1;
        }
    return 0;
}

/* Core(**settings): keywords only, as the type's doc lists them. Nineteen values in a row are
 * easily given in the wrong order, and many are ints or flags that would pass unnoticed there;
 * by name, a misspelt or missing one is a TypeError that names it. */
static int
Core_init(Core *c, PyObject *args, PyObject *kw)
{
    static char *names[] = {
        /* the game: the quilt's cards, the short-side neighbours of each cell (255: none) */
        "quilt", "na", "nb", "wrap", "persian", "safe",
        /* the position */
        "occ", "up", "down", "piles", "left",
        /* the search */
        "lds", "depth_max", "clock_every", "tt_max", "salt",
        /* rule 9 (joint_cap 0: off) */
        "joint_cap", "joint_after", "joint_after_max", NULL};
    Py_buffer quilt, na, nb, up, down;
    int wrap, persian, safe, left, lds, depth_max, clock_every;
    unsigned long long occ;
    long long tt_max;
    unsigned long long salt = 0;
    int joint_cap = 0;
    long long joint_after = 0, joint_after_max = 0;
    PyObject *piles;
    if (PyTuple_GET_SIZE(args)) {
        PyErr_SetString(PyExc_TypeError, "Core() takes keyword arguments only: Core(quilt=..., na=..., ...)");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*y*y*ppp" "Ky*y*Oi" "iiiL|K" "iLL", names, &quilt,
                                     &na, &nb, &wrap, &persian, &safe, &occ, &up, &down, &piles,
                                     &left, &lds, &depth_max, &clock_every, &tt_max, &salt,
                                     &joint_cap, &joint_after, &joint_after_max))
        return -1;
    int bad = quilt.len != CELLS || na.len != CELLS || nb.len != CELLS || up.len != 4 || down.len != 4;
    if (!bad) {
        memcpy(c->quilt, quilt.buf, CELLS);
        for (int x = 0; x < CELLS; x++) {
            int a = ((uint8_t *)na.buf)[x], b = ((uint8_t *)nb.buf)[x];
            c->nba[x] = a < CELLS ? (u64)1 << a : 0;
            c->nbb[x] = b < CELLS ? (u64)1 << b : 0;
            if (c->quilt[x] >= 64)
                bad = 1;
        }
        memcpy(c->root.up, up.buf, 4);
        memcpy(c->root.down, down.buf, 4);
    }
    PyBuffer_Release(&quilt);
    PyBuffer_Release(&na);
    PyBuffer_Release(&nb);
    PyBuffer_Release(&up);
    PyBuffer_Release(&down);
    if (bad || left < 0 || left > 255 || depth_max < 1 || clock_every < 1 || lds < 0) {
        PyErr_SetString(PyExc_ValueError, "Core: bad arguments");
        return -1;
    }
    c->wrap = wrap;
    for (int a = 0; a < 64; a++) {
        c->hosts[a] = 0;
        for (int b = 0; b < 64; b++)
            if (builds(c, a, b))
                c->hosts[a] |= (u64)1 << b;
    }
    memset(c->nbr_of, 0, sizeof c->nbr_of);
    memset(c->card_cells, 0, sizeof c->card_cells);
    memset(c->hosted_by, 0, sizeof c->hosted_by);
    for (int x = 0; x < CELLS; x++) {
        for (u64 o = c->nba[x] | c->nbb[x]; o; o &= o - 1)
            c->nbr_of[__builtin_ctzll(o)] |= (u64)1 << x;
        c->card_cells[c->quilt[x]] |= (u64)1 << x;
        for (u64 o = c->hosts[c->quilt[x]]; o; o &= o - 1)
            c->hosted_by[__builtin_ctzll(o)] |= (u64)1 << x;
    }
    c->persian = persian;
    c->safe = safe;
    c->lds = lds;
    c->depth_max = depth_max;
    c->clock_every = clock_every;
    c->tt_max = tt_max;
    c->salt = salt;
    c->joint_cap = joint_cap < 0 ? 0 : joint_cap;
    c->joint_after = c->joint_after0 = joint_after;
    c->joint_after_max = joint_after_max > joint_after ? joint_after_max : joint_after;
    c->root.occ = occ;
    c->root.left = (uint8_t)left;
    c->root.ss = 0;
    if (!PyTuple_Check(piles) || PyTuple_GET_SIZE(piles) != (persian ? NRES : 2)) {
        PyErr_SetString(PyExc_ValueError, "Core: piles is (waste, stock) or the 8 reserves");
        return -1;
    }
    if (persian) {
        for (int j = 0; j < NRES; j++)
            if (read_pile(PyTuple_GET_ITEM(piles, j), c->root.res[j], &c->root.rlen[j], "reserve") < 0)
                return -1;
    }
    else if (read_pile(PyTuple_GET_ITEM(piles, 0), c->root.waste, &c->root.nw, "waste") < 0
             || read_pile(PyTuple_GET_ITEM(piles, 1), c->root.stock, &c->root.ns, "stock") < 0)
        return -1;
    if (c->tt.table.slots == NULL && table_init(&c->tt.table) < 0)
        goto nomem;
    if (!persian && c->suit_memo == NULL) {
        c->suit_memo = PyMem_Calloc(SUIT_CAP_MIN, sizeof(SuitSlot));
        c->suit_count = 0;
        c->suit_cap = SUIT_CAP_MIN;
        if (c->suit_memo == NULL)
            goto nomem;
    }
    PyMem_Free(c->path.slots);
    for (c->path.cap = 64; c->path.cap < 2 * (size_t)(depth_max + 2);)
        c->path.cap *= 2;
    c->path.slots = PyMem_Calloc(c->path.cap, sizeof(PathSlot));
    PyMem_Free(c->states);
    PyMem_Free(c->keys);
    PyMem_Free(c->line);
    PyMem_Free(c->moves);
    c->states = PyMem_Malloc((size_t)(depth_max + 2) * sizeof(St));
    c->keys = PyMem_Malloc((size_t)(depth_max + 2) * KEYMAX);
    c->line = PyMem_Malloc((size_t)(depth_max + 2) * sizeof(Mv));
    c->capmoves = 4096;
    c->nmoves = 0;
    c->moves = PyMem_Malloc(c->capmoves * sizeof(Mv));
    if (c->path.slots == NULL || c->states == NULL || c->keys == NULL || c->line == NULL || c->moves == NULL)
        goto nomem;
    c->nodes = 0;
    c->too_deep = 0;
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

/* a move of the line as solver.py's move tuple */
static PyObject *
move_tuple(const void *line, Py_ssize_t i)
{
    const Mv *m = (const Mv *)line + i;
    switch (m->kind) {
    case 'd':
        return Py_BuildValue("(s)", "d");
    case 'r':
        return Py_BuildValue("(s)", "r");
    case 'b':
        return Py_BuildValue("(si)", "b", m->src);
    case 'f':
        return Py_BuildValue("(sii)", "f", m->src, m->dest);
    default:
        return Py_BuildValue("(sii)", "R", m->src, m->dest);
    }
}

static PyObject *run_iterations(Core *c);

/* run(tick) -> ("won", moves) | ("lost", []) | None (cut by depth: undecided); tick(nodes) is
 * called every clock_every nodes and what it raises is raised. */
static PyObject *
Core_run(Core *c, PyObject *tick)
{
    if (!PyCallable_Check(tick)) {
        PyErr_SetString(PyExc_TypeError, "run(tick): tick must be callable");
        return NULL;
    }
    Py_XSETREF(c->tick, Py_NewRef(tick));
    PyObject *got = run_iterations(c);
    /* tick is usually a closure over the Python object that holds this core: keeping it would
     * make a cycle that nothing collects (this type is not tracked by the garbage collector) */
    Py_CLEAR(c->tick);
    return got;
}

static PyObject *
run_iterations(Core *c)
{
    for (int it = 0; it <= c->lds + 1; it++) {
        int d = it <= c->lds ? it : INF;
        c->states[0] = c->root;
        c->depth = 0;
        c->nmoves = 0;
        memset(c->path.slots, 0, c->path.cap * sizeof(PathSlot));
        int got = dfs(c, d, 0, 0, 0);
        if (got < 0) {
            c->depth = 0;
            return NULL;
        }
        if (got & R_WON) {
            PyObject *line = list_of(c->line, c->wonlen, move_tuple);
            if (line == NULL)
                return NULL;
            c->depth = 0;
            return Py_BuildValue("(sN)", "won", line);
        }
        if (!(got & R_CUT) || (d == INF && !c->too_deep))
            return Py_BuildValue("(s[])", "lost");
    }
    Py_RETURN_NONE;
}

/* restart(salt): Search.restart: the next run's order, and the table's marks of an earlier
 * order's iterations turned into CHECKED (what they say of rules 4, 6, 7 and 8 holds in any order;
 * PROVEN is kept). */
static PyObject *
Core_restart(Core *c, PyObject *arg)
{
    unsigned long long salt = PyLong_AsUnsignedLongLong(arg);
    if (salt == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    c->salt = salt;
    c->too_deep = 0;
    if (++c->tt.gen == 0) /* after 2^32 restarts the old generations' numbers come round again */
        for (size_t i = 0; i < c->tt.table.cap; i++) {
            Slot *s = &c->tt.table.slots[i];
            if (s->off && s->val != PROVEN)
                s->val = CHECKED;
            s->gen = 0;
        }
    Py_RETURN_NONE;
}

static PyObject *
Core_nodes(Core *c, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromLongLong(c->nodes);
}

static PyObject *
Core_tt_size(Core *c, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromSize_t(c->tt.table.count);
}

static PyMethodDef Core_methods[] = {
    {"run", (PyCFunction)Core_run, METH_O, "run(tick): the search, as solver.Search.run"},
    {"nodes", (PyCFunction)Core_nodes, METH_NOARGS, "positions entered so far"},
    {"restart", (PyCFunction)Core_restart, METH_O, "restart(salt): as solver.Search.restart"},
    {"tt_size", (PyCFunction)Core_tt_size, METH_NOARGS, "entries in the transposition table"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = CORE_TYPE(
    "musical_cli.games.crazy_quilt._search.Core",
    "Core(*, quilt, na, nb, wrap, persian, safe, occ, up, down, piles, left, lds, depth_max, "
    "clock_every, tt_max, salt=0, joint_cap=0, joint_after=0, joint_after_max=0): solver.Search "
    "in C (keyword arguments only)",
    Core, Core_init, Core_dealloc, Core_methods);

static struct PyModuleDef module = CORE_MODULE(
    "The Crazy Quilt search in C (the same search as solver.Search, node for node).", NULL);

PyMODINIT_FUNC
PyInit__search(void)
{
    return module_with_core(&module, &CoreType);
}
