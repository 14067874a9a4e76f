/* The compiled floor for `make bench` (issue 16): the path query's A* (rules/pathfinding.py,
 * Navigator._search) ported to C on the same graph, so the Python query can be compared with
 * what compiled code does with the same work. Bench only: never shipped, never imported by the
 * engine. bench/bench_40k.py compiles it with the machine's C compiler and skips it if there is
 * none.
 *
 * Simplification (it favours the floor): the edges from the start and to the goal are given as
 * lists of visible nodes (tested beforehand in Python), so the floor does no visibility tests,
 * which the Python query does lazily. A query's time covers the search alone.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

typedef struct { double f, g; int node; } Entry;

static void push(Entry *heap, int *size, Entry e) {
    int i = (*size)++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (heap[parent].f <= e.f) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = e;
}

static Entry pop(Entry *heap, int *size) {
    Entry top = heap[0], last = heap[--(*size)];
    int i = 0;
    for (;;) {
        int child = 2 * i + 1;
        if (child >= *size) break;
        if (child + 1 < *size && heap[child + 1].f < heap[child].f) child++;
        if (last.f <= heap[child].f) break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = last;
    return top;
}

/* For each query q: start (sx, sy), goal (gx, gy), direct[q] (the straight segment is clear),
 * the nodes seen from the start s_nodes[s_off[q]..s_off[q+1]] and from the goal likewise.
 * Writes the shortest length (or -1) and the search time in microseconds. */
void astar_queries(int n, const double *xy, const int *adj_off, const int *adj_to,
                   const double *adj_w, int queries, const double *sg, const int *direct,
                   const int *s_off, const int *s_nodes, const int *g_off, const int *g_nodes,
                   double *lengths, double *micros) {
    /* every push is a start node, a relaxed edge or a goal entry: at most this many */
    int capacity = adj_off[n] + 2 * n + 16;
    Entry *heap = malloc(sizeof(Entry) * (size_t)capacity);
    double *best = malloc(sizeof(double) * (size_t)n);
    unsigned char *closed = malloc((size_t)n);
    unsigned char *goal_ok = malloc((size_t)n);
    for (int q = 0; q < queries; q++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        double sx = sg[4 * q], sy = sg[4 * q + 1], gx = sg[4 * q + 2], gy = sg[4 * q + 3];
        double result = -1;
        if (direct[q]) {
            result = hypot(gx - sx, gy - sy);
        } else {
            int size = 0;
            for (int k = 0; k < n; k++) { best[k] = INFINITY; closed[k] = 0; goal_ok[k] = 0; }
            for (int k = g_off[q]; k < g_off[q + 1]; k++) goal_ok[g_nodes[k]] = 1;
            for (int k = s_off[q]; k < s_off[q + 1]; k++) {
                int v = s_nodes[k];
                double d = hypot(xy[2 * v] - sx, xy[2 * v + 1] - sy);
                if (d < best[v]) {
                    best[v] = d;
                    Entry e = {d + hypot(xy[2 * v] - gx, xy[2 * v + 1] - gy), d, v};
                    push(heap, &size, e);
                }
            }
            while (size > 0) {
                Entry e = pop(heap, &size);
                if (e.node == n) { result = e.g; break; }
                if (closed[e.node]) continue;
                closed[e.node] = 1;
                double ux = xy[2 * e.node], uy = xy[2 * e.node + 1];
                if (goal_ok[e.node]) {
                    double d = e.g + hypot(ux - gx, uy - gy);
                    Entry goal = {d, d, n};
                    push(heap, &size, goal);
                }
                for (int k = adj_off[e.node]; k < adj_off[e.node + 1]; k++) {
                    int v = adj_to[k];
                    if (closed[v]) continue;
                    double c = e.g + adj_w[k];
                    if (c < best[v] - 1e-12) {
                        best[v] = c;
                        Entry next = {c + hypot(xy[2 * v] - gx, xy[2 * v + 1] - gy), c, v};
                        push(heap, &size, next);
                    }
                }
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        lengths[q] = result;
        micros[q] = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
    }
    free(heap); free(best); free(closed); free(goal_ok);
}
