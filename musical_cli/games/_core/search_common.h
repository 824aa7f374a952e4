/* What the solvers' three C cores share: musical/_search.c, calculation/_search.c and
 * crazy_quilt/_search.c each include this header.
 *
 *   - the hash of a byte-string key (FNV-1a);
 *   - a hash table over such keys, kept in an arena (the transposition tables, and Calculation's
 *     caches of fronts and of relaxed verdicts);
 *   - the two generations of a transposition table that Musical and Calculation keep;
 *   - growing an array;
 *   - the glue to the Python object that keeps the node count and the clock;
 *   - the module's set-up (one type, Core).
 *
 * Nothing here decides what a search does, so nothing here bears on the cores being node for
 * node their Python searches: what is looked up and stored when, and how the clock is read,
 * stays in each core. It lives in musical_cli/games/_core/, a folder that is no Python package:
 * setup.py puts it on each core's include path and lists this header in each core's depends (a
 * change here rebuilds the three), and MANIFEST.in puts it in the sdist. Every function is
 * static inline, so a core compiles only what it calls and is not warned about the rest.
 */
#ifndef MUSICAL_SEARCH_COMMON_H
#define MUSICAL_SEARCH_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- the hash ------------------------------------------------------------------------------ */

/* FNV-1a over the key's bytes, all 64 bits: each core folds them to what it needs (Crazy Quilt's
 * Python search computes the same fold, as its restarts' orders are seeded by it). */
static inline uint64_t
fnv1a(const uint8_t *key, int len)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < len; i++) {
        h ^= key[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The 32 bits a Table keeps of a key's hash, the high half folded into the low one. */
static inline uint32_t
table_hash(const uint8_t *key, int len)
{
    uint64_t h = fnv1a(key, len);
    return (uint32_t)(h ^ (h >> 32));
}

/* ---- the table: open addressing over keys kept in an arena --------------------------------
 *
 * A slot holds a key's hash, where the key is in the arena, and the key's value. A core that
 * keeps more with each key defines SLOT_EXTRA, the declarations of its further fields, before it
 * includes this header (Crazy Quilt: the run that set the value, and a flag of rule 9), so that
 * the other cores' slots stay 12 bytes. Keys are never removed one at a time, only all at once
 * (table_clear, table_free), so an empty slot is all zeros and a new entry's further fields
 * start at 0. */

typedef struct {
    uint32_t hash;
    uint32_t off; /* offset + 1 into the arena; 0: empty */
    int32_t val;
#ifdef SLOT_EXTRA
    SLOT_EXTRA
#endif
} Slot;

/* a key's length is the byte before it in the arena */
#define TABLE_KEY_MAX 255

typedef struct {
    Slot *slots;
    size_t cap; /* a power of two, at least twice the count */
    size_t count;
    uint8_t *arena; /* each key: its length, then its bytes */
    size_t used, size;
} Table;

/* An empty table: 0, or -1 when out of memory (no exception set: each caller says). */
static inline int
table_init(Table *t)
{
    t->cap = 1 << 12;
    t->count = 0;
    t->slots = PyMem_Calloc(t->cap, sizeof(Slot));
    t->size = 1 << 16;
    t->used = 0;
    t->arena = PyMem_Malloc(t->size);
    if (t->slots == NULL || t->arena == NULL) {
        PyMem_Free(t->slots);
        PyMem_Free(t->arena);
        t->slots = NULL;
        t->arena = NULL;
        return -1;
    }
    return 0;
}

/* Frees the table's memory; table_get then finds nothing, table_init starts it again. */
static inline void
table_free(Table *t)
{
    PyMem_Free(t->slots);
    PyMem_Free(t->arena);
    t->slots = NULL;
    t->arena = NULL;
    t->cap = t->count = t->used = t->size = 0;
}

/* Every entry dropped, the memory kept for the next ones. */
static inline void
table_clear(Table *t)
{
    memset(t->slots, 0, t->cap * sizeof(Slot));
    t->count = 0;
    t->used = 0;
}

/* The slot holding key, or the empty slot where it would go. */
static inline Slot *
table_find(const Table *t, const uint8_t *key, int len, uint32_t hash)
{
    size_t mask = t->cap - 1;
    size_t i = hash & mask;
    for (;;) {
        Slot *s = &t->slots[i];
        if (s->off == 0)
            return s;
        if (s->hash == hash) {
            const uint8_t *k = t->arena + s->off - 1;
            if (k[0] == len && memcmp(k + 1, key, len) == 0)
                return s;
        }
        i = (i + 1) & mask;
    }
}

/* 1 with key's value in *val, or 0 when the table (perhaps freed) does not hold key. */
static inline int
table_get(const Table *t, const uint8_t *key, int len, uint32_t hash, int *val)
{
    if (t->slots == NULL)
        return 0;
    Slot *s = table_find(t, key, len, hash);
    if (s->off == 0)
        return 0;
    *val = s->val;
    return 1;
}

static inline int
table_grow(Table *t)
{
    size_t cap = t->cap * 2;
    Slot *slots = PyMem_Calloc(cap, sizeof(Slot));
    if (slots == NULL)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        Slot *s = &t->slots[i];
        if (s->off) {
            size_t j = s->hash & (cap - 1);
            while (slots[j].off)
                j = (j + 1) & (cap - 1);
            slots[j] = *s;
        }
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

/* Sets key's value, adding key when it is new: its slot, which stays put until the next
 * table_put (the table grows before it adds, never after), or NULL when out of memory. */
static inline Slot *
table_put(Table *t, const uint8_t *key, int len, uint32_t hash, int val)
{
    Slot *s = table_find(t, key, len, hash);
    if (s->off == 0) {
        if ((t->count + 1) * 2 > t->cap) {
            if (table_grow(t) < 0)
                return NULL;
            s = table_find(t, key, len, hash);
        }
        if (t->used + len + 1 > t->size) {
            size_t size = t->size * 2;
            uint8_t *arena = PyMem_Realloc(t->arena, size);
            if (arena == NULL)
                return NULL;
            t->arena = arena;
            t->size = size;
        }
        if (t->used + len + 1 >= UINT32_MAX)
            return NULL;
        uint8_t *k = t->arena + t->used;
        k[0] = (uint8_t)len;
        memcpy(k + 1, key, len);
        s->hash = hash;
        s->off = (uint32_t)(t->used + 1);
        t->used += len + 1;
        t->count++;
    }
    s->val = val;
    return s;
}

/* ---- two generations of a transposition table (Musical, Calculation) -----------------------
 *
 * Entries go to the young generation; when it holds max entries it becomes the old one and the
 * old one is dropped, so memory stays bounded and the latest entries survive. When each is
 * looked up, and what is stored, is each core's: it must be its Python search's. */

typedef struct {
    Table young, old;
    long max; /* entries in the young generation before it ages */
} Generations;

/* Both generations emptied, a young one made: 0, or -1 with MemoryError. */
static inline int
generations_start(Generations *g, long max)
{
    table_free(&g->young);
    table_free(&g->old);
    g->max = max;
    if (table_init(&g->young) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static inline int
generations_full(const Generations *g)
{
    return (long)g->young.count >= g->max;
}

/* The young generation becomes the old one, the old one is dropped: 0, or -1 with MemoryError. */
static inline int
generations_age(Generations *g)
{
    table_free(&g->old);
    g->old = g->young;
    if (table_init(&g->young) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static inline void
generations_free(Generations *g)
{
    table_free(&g->young);
    table_free(&g->old);
}

/* Core.tt_size(): the entries of the young and the old generation. */
static inline PyObject *
generations_size(const Generations *g)
{
    return Py_BuildValue("(nn)", (Py_ssize_t)g->young.count, (Py_ssize_t)g->old.count);
}

/* Core.tt_size() of a core that keeps Generations: its Core struct begins as this one does (a
 * _Static_assert in the core says so), so that one function serves Musical's and Calculation's. */
typedef struct {
    PyObject_HEAD
    Generations tt;
} GenerationsHead;

static inline PyObject *
generations_tt_size(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    return generations_size(&((GenerationsHead *)self)->tt);
}

#define TT_SIZE_METHOD                                                                            \
    {                                                                                             \
        "tt_size", generations_tt_size, METH_NOARGS,                                              \
            "The entries of the transposition table's two generations (young, old)."              \
    }

/* ---- arrays -------------------------------------------------------------------------------- */

/* Doubles an array's room (to `first` elements at first): 0, or -1 with MemoryError. */
static inline int
grow_array(void **buf, size_t *cap, size_t size, size_t first)
{
    size_t n = *cap ? 2 * *cap : first;
    void *p = PyMem_Realloc(*buf, n * size);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *buf = p;
    *cap = n;
    return 0;
}

/* ---- the clock ------------------------------------------------------------------------------
 *
 * A core counts its nodes in C and hands the count to the Python object that keeps the search's
 * clock now and then (every 256 nodes, or Crazy Quilt's clock_every), calling its tick, so that
 * budgets, node limits, progress reports and interruptions act as in the Python search. Each
 * returns 0, or -1 with the exception set (tick's own: a timeout, KeyboardInterrupt). */

/* owner.nodes = nodes */
static inline int
nodes_write(PyObject *owner, long long nodes)
{
    PyObject *v = PyLong_FromLongLong(nodes);
    if (v == NULL)
        return -1;
    int err = PyObject_SetAttrString(owner, "nodes", v);
    Py_DECREF(v);
    return err;
}

/* *nodes = owner.nodes */
static inline int
nodes_read(PyObject *owner, long long *nodes)
{
    PyObject *v = PyObject_GetAttrString(owner, "nodes");
    if (v == NULL)
        return -1;
    *nodes = PyLong_AsLongLong(v);
    Py_DECREF(v);
    return *nodes == -1 && PyErr_Occurred() ? -1 : 0;
}

/* owner.tick() */
static inline int
tick_method(PyObject *owner)
{
    PyObject *r = PyObject_CallMethod(owner, "tick", NULL);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* tick(nodes), for a clock that is a function of the count */
static inline int
tick_call(PyObject *tick, long long nodes)
{
    PyObject *n = PyLong_FromLongLong(nodes);
    if (n == NULL)
        return -1;
    PyObject *r = PyObject_CallOneArg(tick, n);
    Py_DECREF(n);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* At the end of a search, however it ended: owner.nodes = nodes. 0 when the search ended
 * well; -1 with an exception set when not: the one that ended it, the write's if the write
 * failed, or a SystemError when the search says it failed (failed) but set none. */
static inline int
nodes_hand_back(PyObject *owner, long long nodes, int failed)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (nodes_write(owner, nodes) < 0) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return -1;
    }
    if (type != NULL) {
        PyErr_Restore(type, value, tb);
        return -1;
    }
    if (failed) {
        PyErr_SetString(PyExc_SystemError, "the solver's C core failed without an exception");
        return -1;
    }
    return 0;
}

/* ---- the module ---------------------------------------------------------------------------- */

/* A list of n Python objects, item(items, i) the i-th (a new reference, or NULL with the
 * exception): a line of moves as each core hands it to its solver.py. NULL with the exception. */
static inline PyObject *
list_of(const void *items, Py_ssize_t n, PyObject *(*item)(const void *items, Py_ssize_t i))
{
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = item(items, i);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

/* Each core is a module _search holding one type, Core: the initializers of both, with what
 * differs between the cores (names, docs, the struct, its methods and the module's functions). */
#define CORE_TYPE(name, doc, type, init, dealloc, methods)                                        \
    {                                                                                             \
        PyVarObject_HEAD_INIT(NULL, 0) /* a comma of its own */                                   \
        .tp_name = (name),                                                                        \
        .tp_doc = (doc),                                                                          \
        .tp_basicsize = sizeof(type),                                                             \
        .tp_flags = Py_TPFLAGS_DEFAULT,                                                           \
        .tp_new = PyType_GenericNew,                                                              \
        .tp_init = (initproc)(init),                                                              \
        .tp_dealloc = (destructor)(dealloc),                                                      \
        .tp_methods = (methods),                                                                  \
    }

#define CORE_MODULE(doc, functions)                                                               \
    {                                                                                             \
        PyModuleDef_HEAD_INIT, "_search", (doc), -1, (functions), NULL, NULL, NULL, NULL,         \
    }

/* The module of def, its type Core ready and added: the module, or NULL with the exception. */
static inline PyObject *
module_with_core(PyModuleDef *def, PyTypeObject *core)
{
    if (PyType_Ready(core) < 0)
        return NULL;
    PyObject *m = PyModule_Create(def);
    if (m == NULL)
        return NULL;
    Py_INCREF(core);
    if (PyModule_AddObject(m, "Core", (PyObject *)core) < 0) {
        Py_DECREF(core);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

#endif /* MUSICAL_SEARCH_COMMON_H */
