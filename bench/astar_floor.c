/* The compiled floor for `make bench` (issue 16): the path query's A* (rules/pathfinding.py,
 * Navigator._search) ported to C on the same graph, so the Python query can be compared with
 * what compiled code does with the same work. Bench only: never shipped, never imported by the
 * engine. bench/bench_40k.py compiles it with the machine's C compiler and skips it if there is
 * none.
 *
 * Like the Python query it tests the straight segment first, and the edges from the start and to
 * the goal lazily, when the search reaches them: against the obstacles' edges (the navigator's
 * blocked core), found through a uniform grid of 1 in cells. The candidate nodes (tangent at
 * the node) are given, as the Python query computes them with numpy before its search.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

typedef struct { double f, g; int node; int check; } Entry;

/* The obstacles' edges and a grid over them (cells of 1 in, from (0, 0)). */
typedef struct {
    int edges, cols, rows;
    const double *seg;  /* ax, ay, bx, by per edge */
    int *cell_off, *cell_edges, *stamp;
    int now;
} Walls;

static double orient(double ax, double ay, double bx, double by, double cx, double cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static int on_box(double ax, double ay, double bx, double by, double cx, double cy) {
    return fmin(ax, bx) <= cx && cx <= fmax(ax, bx) && fmin(ay, by) <= cy && cy <= fmax(ay, by);
}

/* Do segments pq and ab meet (touching counts, as GEOS's intersects)? */
static int meets(double px, double py, double qx, double qy, const double *e) {
    double d1 = orient(e[0], e[1], e[2], e[3], px, py), d2 = orient(e[0], e[1], e[2], e[3], qx, qy);
    double d3 = orient(px, py, qx, qy, e[0], e[1]), d4 = orient(px, py, qx, qy, e[2], e[3]);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
        return 1;
    if (d1 == 0 && on_box(e[0], e[1], e[2], e[3], px, py)) return 1;
    if (d2 == 0 && on_box(e[0], e[1], e[2], e[3], qx, qy)) return 1;
    if (d3 == 0 && on_box(px, py, qx, qy, e[0], e[1])) return 1;
    if (d4 == 0 && on_box(px, py, qx, qy, e[2], e[3])) return 1;
    return 0;
}

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Is the segment pq clear of every obstacle edge? */
static int sees(Walls *w, double px, double py, double qx, double qy) {
    w->now++;
    int c0 = clamp((int)floor(fmin(px, qx)), 0, w->cols - 1);
    int c1 = clamp((int)floor(fmax(px, qx)), 0, w->cols - 1);
    int r0 = clamp((int)floor(fmin(py, qy)), 0, w->rows - 1);
    int r1 = clamp((int)floor(fmax(py, qy)), 0, w->rows - 1);
    double dx = qx - px, dy = qy - py;
    for (int r = r0; r <= r1; r++) {
        for (int c = c0; c <= c1; c++) {
            /* skip cells the segment's line does not cross (corner signs all alike) */
            double s0 = dx * (r - py) - dy * (c - px), s1 = dx * (r - py) - dy * (c + 1 - px);
            double s2 = dx * (r + 1 - py) - dy * (c - px), s3 = dx * (r + 1 - py) - dy * (c + 1 - px);
            if ((s0 > 0 && s1 > 0 && s2 > 0 && s3 > 0) || (s0 < 0 && s1 < 0 && s2 < 0 && s3 < 0))
                continue;
            int cell = r * w->cols + c;
            for (int k = w->cell_off[cell]; k < w->cell_off[cell + 1]; k++) {
                int e = w->cell_edges[k];
                if (w->stamp[e] == w->now) continue;
                w->stamp[e] = w->now;
                if (meets(px, py, qx, qy, w->seg + 4 * e)) return 0;
            }
        }
    }
    return 1;
}

static void build_grid(Walls *w, int edges, const double *seg, double width, double height) {
    w->edges = edges; w->seg = seg; w->now = 0;
    w->cols = (int)ceil(width) + 1; w->rows = (int)ceil(height) + 1;
    int cells = w->cols * w->rows;
    w->cell_off = calloc((size_t)cells + 1, sizeof(int));
    w->stamp = calloc((size_t)edges + 1, sizeof(int));
    for (int pass = 0; pass < 2; pass++) {
        int *fill = pass ? calloc((size_t)cells, sizeof(int)) : NULL;
        for (int e = 0; e < edges; e++) {
            const double *s = seg + 4 * e;
            int c0 = clamp((int)floor(fmin(s[0], s[2])), 0, w->cols - 1);
            int c1 = clamp((int)floor(fmax(s[0], s[2])), 0, w->cols - 1);
            int r0 = clamp((int)floor(fmin(s[1], s[3])), 0, w->rows - 1);
            int r1 = clamp((int)floor(fmax(s[1], s[3])), 0, w->rows - 1);
            for (int r = r0; r <= r1; r++)
                for (int c = c0; c <= c1; c++) {
                    int cell = r * w->cols + c;
                    if (pass) w->cell_edges[w->cell_off[cell] + fill[cell]++] = e;
                    else w->cell_off[cell + 1]++;
                }
        }
        if (!pass) {
            for (int k = 0; k < cells; k++) w->cell_off[k + 1] += w->cell_off[k];
            w->cell_edges = malloc(sizeof(int) * (size_t)(w->cell_off[cells] + 1));
        } else {
            free(fill);
        }
    }
}

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

/* For each query q: start (sx, sy) and goal (gx, gy), the nodes tangent from the start
 * s_nodes[s_off[q]..s_off[q+1]] and from the goal likewise. `seg` holds the obstacles' edges.
 * Writes the shortest length (or -1) and the query's time in microseconds. */
void astar_queries(int n, const double *xy, const int *adj_off, const int *adj_to,
                   const double *adj_w, int edges, const double *seg, double width, double height,
                   int queries, const double *sg, const int *s_off, const int *s_nodes,
                   const int *g_off, const int *g_nodes, double *lengths, double *micros) {
    Walls walls;
    build_grid(&walls, edges, seg, width, height);
    /* every push is a start node, a relaxed edge or a goal entry (one per node, plus the
     * straight line and a re-push per failed check): at most this many */
    int capacity = adj_off[n] + 3 * n + 16;
    Entry *heap = malloc(sizeof(Entry) * (size_t)capacity);
    double *best = malloc(sizeof(double) * (size_t)n);
    unsigned char *closed = malloc((size_t)n);
    unsigned char *goal_ok = malloc((size_t)n);
    for (int q = 0; q < queries; q++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        double sx = sg[4 * q], sy = sg[4 * q + 1], gx = sg[4 * q + 2], gy = sg[4 * q + 3];
        double result = -1;
        if (sees(&walls, sx, sy, gx, gy)) {
            result = hypot(gx - sx, gy - sy);
        } else {
            int size = 0;
            for (int k = 0; k < n; k++) { best[k] = INFINITY; closed[k] = 0; goal_ok[k] = 0; }
            for (int k = g_off[q]; k < g_off[q + 1]; k++) goal_ok[g_nodes[k]] = 1;
            for (int k = s_off[q]; k < s_off[q + 1]; k++) {
                int v = s_nodes[k];
                double d = hypot(xy[2 * v] - sx, xy[2 * v + 1] - sy);
                Entry e = {d + hypot(xy[2 * v] - gx, xy[2 * v + 1] - gy), d, v, 1};
                push(heap, &size, e);
            }
            while (size > 0) {
                Entry e = pop(heap, &size);
                if (e.node >= n) {  /* the goal, reached from node e.node - n - 1 */
                    int from = e.node - n - 1;
                    if (e.check && !sees(&walls, xy[2 * from], xy[2 * from + 1], gx, gy)) continue;
                    result = e.g;
                    break;
                }
                if (closed[e.node]) continue;
                double ux = xy[2 * e.node], uy = xy[2 * e.node + 1];
                if (e.check && !sees(&walls, sx, sy, ux, uy)) continue;
                closed[e.node] = 1;
                if (goal_ok[e.node]) {
                    double d = e.g + hypot(ux - gx, uy - gy);
                    Entry goal = {d, d, n + 1 + e.node, 1};
                    push(heap, &size, goal);
                }
                for (int k = adj_off[e.node]; k < adj_off[e.node + 1]; k++) {
                    int v = adj_to[k];
                    if (closed[v]) continue;
                    double c = e.g + adj_w[k];
                    if (c < best[v] - 1e-12) {
                        best[v] = c;
                        Entry next = {c + hypot(xy[2 * v] - gx, xy[2 * v + 1] - gy), c, v, 0};
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
    free(walls.cell_off); free(walls.cell_edges); free(walls.stamp);
}
