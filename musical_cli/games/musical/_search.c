/* The Musical exhaustive search (rules 1 to 5 and 7 of solver.py's docstring) in C.
 *
 * This is a transcription of solver.Search's search (Search.run, with rule 6's split or
 * without), made to be the same search node for node: the same branches in the same
 * order, the same transposition table (two generations of at most tt_max entries, promotion
 * from the old one), the same node count and the same calls to clock.tick() every 256 nodes.
 * So it gives the same verdict, the same line and the same node count as the Python search,
 * which the tests check on many positions; the soundness arguments are the Python module's.
 * Only the speed differs. Without a C compiler the package installs without this module and
 * solver.py uses its own search.
 *
 * Card codes are rank << 4 | allowed mask, as in solver.py; rule 3's bit-parallel heights use
 * 12 bits per foundation, so they fit a uint64_t. The table itself, its hash and the glue to
 * Python are in ../_core/search_common.h, which the three games' cores share.
 */
#include "search_common.h"

#define NF 4
#define SLOTS 11
#define MAXN 52
#define NCODES 224
#define DEAL_MOVE (-1)
#define REDEAL_MOVE (-2)
#define KEYMAX (MAXN + 5)
_Static_assert(KEYMAX <= TABLE_KEY_MAX, "a transposition key must fit the table's length byte");

/* results inside the search: 1 won, 0 not won here; negative ones unwind at once */
#define R_ERROR (-1) /* a Python exception is set (from clock.tick(), or no memory) */
#define R_LIMIT (-2) /* the node limit of this run */

typedef uint64_t u64;

static u64 ONES;
static int POPCOUNT[16];

/* ---- the search ------------------------------------------------------------------------- */

typedef struct {
    uint8_t card, code;
} Undo;

typedef struct {
    PyObject_HEAD
    Generations tt; /* the transposition table (first: GenerationsHead) */
    /* the rules' tables, from the NEED table given by solver.py */
    uint8_t need_rank[NF][SLOTS]; /* NEED[x][j] */
    int8_t slot[NF][14];          /* SLOT[x][r] */
    u64 pv[NCODES], below[NCODES], low[NF][SLOTS + 1], field[NF];
    /* the position */
    int n, p0, h0[NF], passes0;
    uint8_t ranks[MAXN];
    int stuck_passes, chain;
    /* the search state (solver.Search's attributes of the same names) */
    uint8_t seq[MAXN];
    int len, p, h[NF], passes, pass_start;
    int need[14], want[14];
    uint8_t cm[MAXN];
    uint8_t live[14][NF + 1];
    int nlive[14];
    int *moves;
    int nmoves;
    size_t capmoves;
    Undo *undo;
    int utop;
    size_t ucap;
    /* rule 6: the foundations split on, and the slots of each not pinned yet */
    int order[NF], norder;
    int unp[NF][SLOTS], nunp[NF];
    /* the clock */
    PyObject *clock;
    long long nodes, limit;
    int has_limit;
} Core;
_Static_assert(offsetof(Core, tt) == offsetof(GenerationsHead, tt), "Core begins as GenerationsHead");

static int
push_move(Core *s, int m)
{
    if ((size_t)s->nmoves == s->capmoves
        && grow_array((void **)&s->moves, &s->capmoves, sizeof(int), 256) < 0)
        return -1;
    s->moves[s->nmoves++] = m;
    return 0;
}

static int
push_undo(Core *s, int card)
{
    if ((size_t)s->utop == s->ucap && grow_array((void **)&s->undo, &s->ucap, sizeof(Undo), 1024) < 0)
        return -1;
    s->undo[s->utop].card = (uint8_t)card;
    s->undo[s->utop].code = s->cm[card];
    s->utop++;
    return 0;
}

static void
restore(Core *s, int mark)
{
    while (s->utop > mark) {
        s->utop--;
        s->cm[s->undo[s->utop].card] = s->undo[s->utop].code;
    }
}

/* Rule 1 (solver.match): each copy's set cut to the foundations it gets in some perfect
 * matching of the copies onto the foundations in need; 0 when there is none. */
static void
assign(const int *masks, int k, int i, int need, int used, int *chosen, int *got)
{
    if (i == k) {
        for (int j = 0; j < k; j++)
            got[j] |= 1 << chosen[j];
        return;
    }
    int m = masks[i] & need & ~used;
    for (int x = 0; x < NF; x++) {
        if (m >> x & 1) {
            chosen[i] = x;
            assign(masks, k, i + 1, need, used | 1 << x, chosen, got);
        }
    }
}

/* MATCHED[need << 16 | masks, 4 bits a copy]: 0 not known yet, NO_MATCH, else HAVE_MATCH | the
 * cut masks, 4 bits a copy (as solver.py's _MATCH_CACHE; 4 MB, filled as the search goes) */
#define HAVE_MATCH (1u << 30)
#define NO_MATCH (1u << 31)
static uint32_t MATCHED[1 << 20];

/* 1 done (changes pushed on the undo stack), 0 no matching (nothing changed), -1 error */
static int
restrict_rank(Core *s, int r)
{
    int k = s->nlive[r];
    int masks[NF + 1] = {0}, got[NF + 1] = {0}, chosen[NF + 1] = {0};
    if (k != POPCOUNT[s->need[r]])
        return 0;
    uint32_t index = (uint32_t)s->need[r] << 16;
    for (int i = 0; i < k; i++) {
        masks[i] = s->cm[s->live[r][i]] & 15;
        index |= (uint32_t)masks[i] << 4 * i;
    }
    uint32_t known = MATCHED[index];
    if (!known) {
        assign(masks, k, 0, s->need[r], 0, chosen, got);
        if (k && !got[0]) {
            known = NO_MATCH;
        }
        else {
            known = HAVE_MATCH;
            for (int i = 0; i < k; i++)
                known |= (uint32_t)got[i] << 4 * i;
        }
        MATCHED[index] = known;
    }
    if (known == NO_MATCH)
        return 0;
    for (int i = 0; i < k; i++)
        got[i] = known >> 4 * i & 15;
    for (int i = 0; i < k; i++) {
        if (got[i] != masks[i]) {
            int c = s->live[r][i];
            if (push_undo(s, c) < 0)
                return -1;
            s->cm[c] = (uint8_t)(r << 4 | got[i]);
        }
    }
    return 1;
}

#define REACHED(g) ((g) ^ ((g) + ONES))

static u64
heights_bits(const Core *s)
{
    return s->low[0][s->h[0]] | s->low[1][s->h[1]] | s->low[2][s->h[2]] | s->low[3][s->h[3]];
}

/* Rule 3's relaxation, on the indexes of the cards (into pv, their slots on their allowed
 * foundations; the cards in order, the first p of them the waste, its top last), for `count`
 * passes at most: the current one, then one after each redeal. 1 when it removes every card,
 * -1 when a pass after a redeal removes none (stuck for ever), else 0 with todo[0..*nt) the
 * cards left, in the order the next pass deals them, and *g the relaxed heights. */
static int
relax(const u64 *pv, int n, int p, int count, int *todo, int *nt, u64 *g)
{
    int idx[MAXN], ni = 0, k = 0;
    u64 reached = REACHED(*g);
    for (int j = 0; j < p; j++)
        idx[ni++] = j;
    while (ni && (pv[idx[ni - 1]] & reached)) {
        *g |= pv[idx[--ni]];
        reached = REACHED(*g);
    }
    for (int j = p; j < n; j++)
        todo[k++] = j;
    for (int pass = 1;; pass++) {
        for (int i = 0; i < k; i++) {
            int j = todo[i];
            u64 v = pv[j];
            if (v & reached) {
                *g |= v;
                reached = REACHED(*g);
                while (ni && (pv[idx[ni - 1]] & reached)) {
                    *g |= pv[idx[--ni]];
                    reached = REACHED(*g);
                }
            }
            else {
                idx[ni++] = j;
            }
        }
        if (!ni)
            return 1;
        if (pass > 1 && ni == k)
            return -1;
        memcpy(todo, idx, ni * sizeof(int));
        k = ni;
        ni = 0;
        if (pass >= count) {
            *nt = k;
            return 0;
        }
    }
}

/* Rule 3 (Search.relaxed_ok): can the relaxation finish within the passes left? */
static int
relaxed_ok(const Core *s)
{
    u64 pv[MAXN];
    int todo[MAXN], nt;
    for (int j = 0; j < s->len; j++)
        pv[j] = s->pv[s->cm[s->seq[j]]];
    u64 g = heights_bits(s);
    /* passes + 1 passes; a count that large is never reached (rule 2 stops it first) */
    int count = s->passes >= MAXN ? MAXN + 1 : s->passes + 1;
    return relax(pv, s->len, s->p, count, todo, &nt, &g) == 1;
}

/* Rule 5's certificates (Search._stuck_cuts and _certificates) as (card, foundation bit)
 * pairs in cc/cb; their number, or -1 when the relaxation fails. */
typedef struct {
    const Core *s;
    const uint8_t *codes;
    const u64 *pv, *after;
    uint8_t *cc, *cb;
    int nc;
} Cuts;

static void
add_cert(Cuts *k, int j, u64 m)
{
    const Core *s = k->s;
    int c = s->seq[j];
    int mask = s->cm[c] & 15;
    for (int x = 0; x < NF; x++) {
        if ((mask >> x & 1) && (m & s->field[x])) {
            k->cc[k->nc] = (uint8_t)c;
            k->cb[k->nc] = (uint8_t)(1 << x);
            k->nc++;
        }
    }
}

static int
last_pass(Cuts *k, const int *todo, int nt, u64 *stack, int ns, u64 g)
{
    const Core *s = k->s;
    const uint8_t *codes = k->codes;
    const u64 *pv = k->pv, *after = k->after;
    u64 reached = REACHED(g);
    while (ns && (stack[ns - 1] & reached)) {
        g |= stack[--ns];
        reached = REACHED(g);
    }
    u64 ng = ~g;
    for (int i = 0; i < nt; i++) {
        int j = todo[i];
        u64 m = s->below[codes[j]] & ng & ~after[j + 1];
        if (m)
            add_cert(k, j, m);
        u64 v = pv[j];
        if (v & reached) {
            g |= v;
            reached = REACHED(g);
            while (ns && (stack[ns - 1] & reached)) {
                g |= stack[--ns];
                reached = REACHED(g);
            }
            ng = ~g;
        }
        else {
            stack[ns++] = v;
        }
    }
    return ns ? -1 : k->nc;
}

static int
stuck_cuts(const Core *s, uint8_t *cc, uint8_t *cb)
{
    uint8_t codes[MAXN];
    u64 pv[MAXN], after[MAXN + 1], stack[MAXN];
    int todo[MAXN];
    int n = s->len;
    for (int j = 0; j < n; j++) {
        codes[j] = s->cm[s->seq[j]];
        pv[j] = s->pv[codes[j]];
    }
    after[n] = 0;
    for (int j = n - 1; j >= 0; j--)
        after[j] = after[j + 1] | pv[j];
    Cuts k = {s, codes, pv, after, cc, cb, 0};
    u64 g = heights_bits(s);
    int p = s->p, left = s->passes;
    if (left > 0) {
        /* rule 5b: the relaxation up to its last pass, then the certificates there */
        int nt = 0;
        int got = relax(pv, n, p, left, todo, &nt, &g);
        if (got)
            return got > 0 ? 0 : -1;
        return last_pass(&k, todo, nt, stack, 0, g);
    }
    /* the last pass: the waste first, then the stock */
    u64 ng = ~g;
    for (int j = 0; j < p; j++) {
        u64 m = s->below[codes[j]] & ng & ~after[j + 1];
        if (m)
            add_cert(&k, j, m);
    }
    for (int j = 0; j < p; j++)
        stack[j] = pv[j];
    int nt = 0;
    for (int j = p; j < n; j++)
        todo[nt++] = j;
    return last_pass(&k, todo, nt, stack, p, g);
}

/* Rule 5 (Search.stuck_prune): 1 done (cuts on the undo stack), 0 lost (restored), -1 error */
static int
stuck_prune(Core *s)
{
    uint8_t cc[MAXN * NF], cb[MAXN * NF];
    int mark = s->utop;
    for (;;) {
        int nc = stuck_cuts(s, cc, cb);
        if (nc < 0) {
            restore(s, mark);
            return 0;
        }
        if (nc == 0)
            return 1;
        int touched = 0;
        for (int i = 0; i < nc; i++) {
            int c = cc[i];
            if (s->cm[c] & cb[i]) {
                if (push_undo(s, c) < 0)
                    return -1;
                s->cm[c] &= (uint8_t)~cb[i];
                touched |= 1 << (s->cm[c] >> 4);
            }
        }
        if (!touched)
            return 1;
        for (int r = 1; r < 14; r++) {
            if (touched >> r & 1) {
                int ok = restrict_rank(s, r);
                if (ok < 0)
                    return -1;
                if (!ok) {
                    restore(s, mark);
                    return 0;
                }
            }
        }
    }
}

/* Rule 7 for foundation x now at height h (Search._chain_ok) */
static int
chain_ok(const Core *s, int x, int h, const uint8_t *codes, int n)
{
    int bit = 1 << x;
    const int8_t *slot_of = s->slot[x];
    int p = s->p, left = s->passes;
    int forced[MAXN], segs[MAXN], nf = 0, avail = 0;
    uint8_t rest[MAXN], todo[MAXN];
    int nr = 0, nt = 0;
    for (int j = 0; j < p; j++) {
        int code = codes[j];
        if (code & bit) {
            int sl = slot_of[code >> 4];
            if (sl >= h) {
                rest[nr++] = (uint8_t)code;
                if ((code & 15) == bit) {
                    forced[nf] = sl;
                    segs[nf++] = avail;
                    avail = 0;
                }
                else {
                    avail |= 1 << sl;
                }
            }
        }
    }
    for (int j = p; j < n; j++)
        if (codes[j] & bit)
            todo[nt++] = codes[j];
    for (;;) {
        for (;;) {
            if (avail >> h & 1)
                h++;
            else if (nf && forced[nf - 1] == h) {
                avail |= segs[--nf];
                h++;
            }
            else
                break;
        }
        for (int i = 0; i < nt; i++) {
            int code = todo[i];
            int sl = slot_of[code >> 4];
            if (sl < h)
                continue;
            if (sl == h) {
                h++;
                for (;;) {
                    if (avail >> h & 1)
                        h++;
                    else if (nf && forced[nf - 1] == h) {
                        avail |= segs[--nf];
                        h++;
                    }
                    else
                        break;
                }
                continue;
            }
            rest[nr++] = (uint8_t)code;
            if ((code & 15) == bit) {
                if (!left && nf && forced[nf - 1] < sl)
                    return 0;
                forced[nf] = sl;
                segs[nf++] = avail;
                avail = 0;
            }
            else {
                avail |= 1 << sl;
            }
        }
        if (h >= SLOTS)
            return 1;
        if (left <= 0)
            return 0;
        left--;
        nt = 0;
        for (int i = 0; i < nr; i++)
            if (slot_of[rest[i] >> 4] >= h)
                todo[nt++] = rest[i];
        nf = 0;
        avail = 0;
        nr = 0;
    }
}

/* Rule 7 (Search.chains_ok) */
static int
chains_ok(const Core *s)
{
    uint8_t codes[MAXN];
    int n = s->len, single = 0;
    for (int j = 0; j < n; j++) {
        codes[j] = s->cm[s->seq[j]];
        int m = codes[j] & 15;
        if (POPCOUNT[m] == 1)
            single |= m;
    }
    for (int x = 0; x < NF; x++)
        if (s->h[x] < SLOTS && (single >> x & 1) && !chain_ok(s, x, s->h[x], codes, n))
            return 0;
    return 1;
}

/* Rules 3, 5 and 7 (Search._bound): 1 open (rule 5's cuts on the undo stack), 0 lost, -1 error */
static int
bound(Core *s)
{
    if (s->passes <= s->stuck_passes) {
        int mark = s->utop;
        int ok = stuck_prune(s);
        if (ok == 1 && s->chain && s->passes == 1 && !chains_ok(s)) {
            restore(s, mark);
            return 0;
        }
        return ok;
    }
    return relaxed_ok(s);
}

static int
count_node(Core *s)
{
    s->nodes++;
    if (s->nodes & 255)
        return 0;
    /* the count is read back: the local search that tick() runs counts its own nodes */
    if (nodes_write(s->clock, s->nodes) < 0 || tick_method(s->clock) < 0
        || nodes_read(s->clock, &s->nodes) < 0)
        return R_ERROR;
    if (s->has_limit && s->nodes >= s->limit)
        return R_LIMIT;
    return 0;
}

static int
store(Core *s, const uint8_t *key, int len, uint32_t hash)
{
    if (generations_full(&s->tt) && generations_age(&s->tt) < 0)
        return R_ERROR;
    if (table_put(&s->tt.young, key, len, hash, s->passes) == NULL) {
        PyErr_NoMemory();
        return R_ERROR;
    }
    return 0;
}

static int dfs(Core *s);

static int
play(Core *s, int c, int r, int x)
{
    int p = s->p, bit = 1 << x;
    memmove(s->seq + p - 1, s->seq + p, s->len - p);
    s->len--;
    s->p = p - 1;
    uint8_t *live = s->live[r];
    int k = 0;
    while (live[k] != c)
        k++;
    memmove(live + k, live + k + 1, s->nlive[r] - k - 1);
    s->nlive[r]--;
    int hx = s->h[x];
    s->h[x] = hx + 1;
    s->want[r] &= ~bit;
    int nr = hx + 1 < SLOTS ? s->need_rank[x][hx + 1] : 0;
    s->want[nr] |= bit;
    s->need[r] &= ~bit;
    int mark = s->utop;
    int ok = restrict_rank(s, r);
    if (ok < 0)
        return R_ERROR;
    if (ok) {
        if (push_move(s, x) < 0)
            return R_ERROR;
        int res = dfs(s);
        if (res)
            return res;
        s->nmoves--;
        restore(s, mark);
    }
    s->need[r] |= bit;
    s->want[nr] &= ~bit;
    s->want[r] |= bit;
    s->h[x] = hx;
    memmove(live + k + 1, live + k, s->nlive[r] - k);
    live[k] = (uint8_t)c;
    s->nlive[r]++;
    memmove(s->seq + p, s->seq + p - 1, s->len - (p - 1));
    s->seq[p - 1] = (uint8_t)c;
    s->len++;
    s->p = p;
    return 0;
}

static int
skip(Core *s, int c, int r, int w, int v)
{
    s->cm[c] = (uint8_t)(v & ~w);
    int mark = s->utop;
    int ok = restrict_rank(s, r);
    if (ok < 0)
        return R_ERROR;
    if (ok) {
        int res = dfs(s);
        if (res)
            return res;
        restore(s, mark);
    }
    s->cm[c] = (uint8_t)v;
    return 0;
}

static int
decide(Core *s, int c, int r, int w)
{
    int res = count_node(s);
    if (res)
        return res;
    uint8_t key[KEYMAX];
    int len = s->len;
    for (int j = 0; j < len; j++)
        key[j] = s->cm[s->seq[j]];
    key[len] = (uint8_t)s->p;
    for (int x = 0; x < NF; x++)
        key[len + 1 + x] = (uint8_t)s->h[x];
    len += 5;
    uint32_t hash = table_hash(key, len);
    int got;
    int found = table_get(&s->tt.young, key, len, hash, &got);
    if (!found) {
        /* found in the old generation: promoted to the young one, as solver.py does */
        found = table_get(&s->tt.old, key, len, hash, &got);
        if (found && table_put(&s->tt.young, key, len, hash, got) == NULL) {
            PyErr_NoMemory();
            return R_ERROR;
        }
    }
    if (found && got >= s->passes)
        return 0;
    int mark = s->utop;
    int open = bound(s);
    if (open < 0)
        return R_ERROR;
    if (!open)
        return store(s, key, len, hash);
    int v = s->cm[c];
    int plays = w & v & 15;
    for (int x = 0; x < NF; x++) {
        if (plays >> x & 1) {
            res = play(s, c, r, x);
            if (res)
                return res;
        }
    }
    res = skip(s, c, r, w, v);
    if (res)
        return res;
    restore(s, mark);
    return store(s, key, len, hash);
}

static int
dfs(Core *s)
{
    int p0 = s->p, p = s->p, passes0 = s->passes, start0 = s->pass_start, nm = s->nmoves;
    for (;;) {
        if (p) {
            int c = s->seq[p - 1];
            int v = s->cm[c];
            int w = s->want[v >> 4];
            if (w & v) {
                s->p = p;
                int res = decide(s, c, v >> 4, w);
                if (res)
                    return res;
                break;
            }
        }
        if (p < s->len) {
            p++;
            if (push_move(s, DEAL_MOVE) < 0)
                return R_ERROR;
            continue;
        }
        if (!s->len) {
            s->p = p;
            return 1;
        }
        if (s->passes <= 0 || s->pass_start == s->len)
            break;
        s->passes--;
        s->pass_start = s->len;
        if (push_move(s, REDEAL_MOVE) < 0)
            return R_ERROR;
        p = 0;
    }
    s->p = p0;
    s->passes = passes0;
    s->pass_start = start0;
    s->nmoves = nm;
    return 0;
}

/* Search._pin: copy c (rank r) fills foundation x's slot for r. 1 open (the changes on the
 * undo stack), 0 lost (restored), or a negative result */
static int
pin(Core *s, int x, int r, int c)
{
    int res = count_node(s);
    if (res)
        return res;
    int mark = s->utop, bit = 1 << x;
    for (int i = 0; i < s->nlive[r]; i++)
        if (push_undo(s, s->live[r][i]) < 0)
            return R_ERROR;
    for (int i = 0; i < s->nlive[r]; i++) {
        int d = s->live[r][i];
        s->cm[d] = d == c ? (uint8_t)(r << 4 | bit) : (uint8_t)(s->cm[d] & ~bit);
    }
    int ok = restrict_rank(s, r);
    if (ok < 0)
        return R_ERROR;
    if (ok) {
        ok = bound(s);
        if (ok < 0)
            return R_ERROR;
        if (ok)
            return 1;
    }
    restore(s, mark);
    return 0;
}

/* Rule 6 (Search._split) */
static int
split(Core *s, int k)
{
    while (k < s->norder && !s->nunp[k])
        k++;
    if (k == s->norder)
        return dfs(s);
    int x = s->order[k], bit = 1 << x;
    int *slots = s->unp[k];
    int best = -1, nbest = 0, best_ok[NF + 1];
    for (int i = 0; i < s->nunp[k]; i++) {
        int j = slots[i];
        int r = s->need_rank[x][j];
        int ok[NF + 1], nok = 0;
        for (int q = 0; q < s->nlive[r]; q++) {
            int c = s->live[r][q];
            if (s->cm[c] & bit) {
                int mark = s->utop;
                int res = pin(s, x, r, c);
                if (res < 0)
                    return res;
                if (res) {
                    ok[nok++] = c;
                    restore(s, mark);
                }
            }
        }
        if (best < 0 || nok < nbest) {
            best = j;
            nbest = nok;
            memcpy(best_ok, ok, nok * sizeof(int));
            if (nok <= 1)
                break;
        }
    }
    int at = 0;
    while (slots[at] != best)
        at++;
    memmove(slots + at, slots + at + 1, (s->nunp[k] - at - 1) * sizeof(int));
    s->nunp[k]--;
    int r = s->need_rank[x][best];
    for (int q = 0; q < nbest; q++) {
        int mark = s->utop;
        int res = pin(s, x, r, best_ok[q]);
        if (res < 0)
            return res;
        if (res) {
            res = split(s, k);
            if (res)
                return res;
            restore(s, mark);
        }
    }
    memmove(slots + at + 1, slots + at, (s->nunp[k] - at) * sizeof(int));
    slots[at] = best;
    s->nunp[k]++;
    return 0;
}

/* Search.reset: 0 when rule 1 already fails */
static int
reset(Core *s)
{
    s->len = s->n;
    for (int i = 0; i < s->n; i++)
        s->seq[i] = (uint8_t)i;
    s->p = s->p0;
    for (int x = 0; x < NF; x++)
        s->h[x] = s->h0[x];
    s->passes = s->passes0;
    s->pass_start = -1;
    memset(s->need, 0, sizeof s->need);
    memset(s->want, 0, sizeof s->want);
    for (int x = 0; x < NF; x++) {
        for (int j = s->h[x]; j < SLOTS; j++)
            s->need[s->need_rank[x][j]] |= 1 << x;
        if (s->h[x] < SLOTS)
            s->want[s->need_rank[x][s->h[x]]] |= 1 << x;
    }
    memset(s->nlive, 0, sizeof s->nlive);
    for (int i = 0; i < s->n; i++) {
        int r = s->ranks[i];
        s->cm[i] = (uint8_t)(r << 4 | s->need[r]);
        s->live[r][s->nlive[r]++] = (uint8_t)i;
    }
    s->nmoves = 0;
    s->utop = 0;
    for (int r = 1; r < 14; r++) {
        int ok = restrict_rank(s, r);
        if (ok <= 0)
            return ok;
    }
    return 1;
}

/* ---- the Python type ---------------------------------------------------------------------- */

static void
Core_dealloc(Core *s)
{
    generations_free(&s->tt);
    PyMem_Free(s->moves);
    PyMem_Free(s->undo);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int
Core_init(Core *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ranks", "p", "heights", "passes", "need", "stuck_passes", "chain",
                             "tt_max", NULL};
    Py_buffer ranks, heights, need;
    int p, passes, stuck_passes, chain;
    long tt_max;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*iy*iy*ipl", kwlist, &ranks, &p, &heights,
                                     &passes, &need, &stuck_passes, &chain, &tt_max))
        return -1;
    int ok = ranks.len <= MAXN && heights.len == NF && need.len == NF * SLOTS && p >= 0
             && p <= ranks.len && passes >= 0 && tt_max > 0;
    const uint8_t *rk = ranks.buf, *hs = heights.buf, *nd = need.buf;
    for (Py_ssize_t i = 0; ok && i < ranks.len; i++)
        ok = rk[i] >= 1 && rk[i] <= 13;
    for (int i = 0; ok && i < NF; i++)
        ok = hs[i] <= SLOTS;
    for (int i = 0; ok && i < NF * SLOTS; i++)
        ok = nd[i] >= 1 && nd[i] <= 13;
    if (ok) {
        s->n = (int)ranks.len;
        memcpy(s->ranks, rk, ranks.len);
        s->p0 = p;
        for (int x = 0; x < NF; x++)
            s->h0[x] = hs[x];
        for (int x = 0; x < NF; x++)
            for (int j = 0; j < SLOTS; j++)
                s->need_rank[x][j] = nd[x * SLOTS + j];
    }
    PyBuffer_Release(&ranks);
    PyBuffer_Release(&heights);
    PyBuffer_Release(&need);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "Core: a position out of range");
        return -1;
    }
    s->passes0 = passes;
    s->stuck_passes = stuck_passes;
    s->chain = chain;
    /* the tables solver.py builds as SLOT, PV, BELOW, LOW and FIELD */
    for (int x = 0; x < NF; x++) {
        for (int r = 0; r < 14; r++)
            s->slot[x][r] = -1;
        for (int j = 0; j < SLOTS; j++)
            s->slot[x][s->need_rank[x][j]] = (int8_t)j;
        for (int j = 0; j <= SLOTS; j++)
            s->low[x][j] = ((1ULL << j) - 1) << 12 * x;
        s->field[x] = 0xFFFULL << 12 * x;
    }
    for (int code = 0; code < NCODES; code++) {
        int r = code >> 4;
        u64 pv = 0, below = 0;
        if (r >= 1 && r <= 13) {
            for (int x = 0; x < NF; x++) {
                int sl = s->slot[x][r];
                if ((code >> x & 1) && sl >= 0) {
                    pv |= 1ULL << (12 * x + sl);
                    below |= ((1ULL << sl) - 1) << 12 * x;
                }
            }
        }
        s->pv[code] = pv;
        s->below[code] = below;
    }
    return generations_start(&s->tt, tt_max);
}

static PyObject *
Core_run(Core *s, PyObject *args)
{
    PyObject *clock, *limit;
    Py_buffer order = {0};
    if (!PyArg_ParseTuple(args, "OO|y*", &clock, &limit, &order))
        return NULL;
    s->norder = 0;
    if (order.buf != NULL) {
        const uint8_t *o = order.buf;
        int ok = order.len <= NF;
        for (Py_ssize_t i = 0; ok && i < order.len; i++)
            ok = o[i] < NF;
        if (ok) {
            s->norder = (int)order.len;
            for (int i = 0; i < s->norder; i++)
                s->order[i] = o[i];
        }
        PyBuffer_Release(&order);
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "Core.run: split order out of range");
            return NULL;
        }
    }
    if (s->tt.young.slots == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Core: not initialised");
        return NULL;
    }
    int ok = reset(s);
    if (ok < 0)
        return NULL;
    if (!ok || !relaxed_ok(s))
        Py_RETURN_FALSE;
    if (nodes_read(clock, &s->nodes) < 0)
        return NULL;
    s->has_limit = limit != Py_None;
    if (s->has_limit) {
        long long n = PyLong_AsLongLong(limit);
        if (n == -1 && PyErr_Occurred())
            return NULL;
        s->limit = s->nodes + n;
    }
    s->clock = clock;
    int res;
    if (s->norder) {
        for (int k = 0; k < s->norder; k++) {
            s->nunp[k] = 0;
            for (int j = s->h[s->order[k]]; j < SLOTS; j++)
                s->unp[k][s->nunp[k]++] = j;
        }
        res = split(s, 0);
    }
    else {
        res = dfs(s);
    }
    s->clock = NULL;
    /* the count goes back to the clock however the search ended */
    if (nodes_hand_back(clock, s->nodes, res == R_ERROR) < 0)
        return NULL;
    if (res == R_LIMIT)
        Py_RETURN_NONE;
    return PyBool_FromLong(res == 1);
}

/* a move as solver.py has it: a foundation 0-3, DEAL_MOVE or REDEAL_MOVE */
static PyObject *
move_int(const void *moves, Py_ssize_t i)
{
    return PyLong_FromLong(((const int *)moves)[i]);
}

static PyObject *
Core_line(Core *s, PyObject *Py_UNUSED(ignored))
{
    return list_of(s->moves, s->nmoves, move_int);
}

static PyMethodDef Core_methods[] = {
    {"run", (PyCFunction)Core_run, METH_VARARGS,
     "run(clock, node_limit[, split_order]) -> True (won), False (lost) or None (node limit "
     "reached); with split_order (bytes: foundations), rule 6's split on them first; "
     "clock.nodes is read and written and clock.tick() called every 256 nodes."},
    {"line", (PyCFunction)Core_line, METH_NOARGS, "The winning line of the last run that won."},
    TT_SIZE_METHOD,
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = CORE_TYPE(
    "musical_cli.games.musical._search.Core",
    "Core(ranks, p, heights, passes, need, stuck_passes, chain, tt_max): "
    "solver.Search's chronological search in C, node for node.",
    Core, Core_init, Core_dealloc, Core_methods);

static struct PyModuleDef module = CORE_MODULE(
    "The Musical solver's exhaustive search in C (optional; solver.py has the same in Python).",
    NULL);

PyMODINIT_FUNC
PyInit__search(void)
{
    for (int m = 0; m < 16; m++)
        POPCOUNT[m] = (m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1);
    ONES = 0;
    for (int x = 0; x < NF; x++)
        ONES |= 1ULL << 12 * x;
    return module_with_core(&module, &CoreType);
}
