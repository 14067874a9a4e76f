"""The 11th-edition dataset: units, terrain layouts and deployment patterns from 40kdc-data.

The data comes from the `wh40kdc` package (pinned in pyproject.toml; MIT code, data CC BY 4.0,
ATTRIBUTION below). This module turns its records into pieces of our scenario format (FORMAT.md):

- a unit record into a unit document: keywords upper-cased, M as `move`, the models' bases from the
  unit's composition (round, oval, or a hull where the dataset has one), the model count kept
  within the dataset's range (`CatalogueUnit`, `unit_document`);
- a terrain layout into a 60 x 44 scenario: terrain in the 3-D model of RULES.md 1.5 (`walls`,
  `floors`), the deployment zones and the objective markers (`layout_document`).

It does not import Django: the web app, the tests and `make bench` all use it. The dataset is read
once per process, on first use, under a lock (`dataset()`), since parsing it costs seconds.

Where the dataset gives no measurement (a hull or "unique" base marked draft, a unit without a
base), the unit gets a stand-in shape and is flagged `approximate`, so the page says so and the
user can correct the unit in the scenario (its own fields win over the data). Bases of that kind
are the dataset's gap, not a rule: the stand-ins are listed in docs/format.md.
"""

from __future__ import annotations

import difflib
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property

from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.ops import unary_union

from rules.situation import LIMITS

#: Our size limits (rules.situation.LIMITS) that the conversions keep to.
VERTICES = int(LIMITS["vertices"])
MODELS_PER_UNIT = int(LIMITS["models_per_unit"])

#: What the data's licence (CC BY 4.0) asks us to show: the work, its author, the licence, and
#: that we changed it. Shown on the About page, in the footer and in the README.
DATASET_NAME = "40kdc-data"
DATASET_URL = "https://github.com/wn-mitch/40kdc-data"
DATASET_AUTHOR = "Alpaca Software"
DATA_LICENCE = "CC BY 4.0"
DATA_LICENCE_URL = "https://creativecommons.org/licenses/by/4.0/"
CODE_LICENCE = "MIT"
ATTRIBUTION = (
    f"Unit, terrain and layout data: {DATASET_NAME} by {DATASET_AUTHOR} ({DATA_LICENCE}), "
    "read with the wh40kdc package (MIT); converted by Arbiter."
)

#: Keyword pattern of our schema (units[].keywords).
_KEYWORD = re.compile(r"^[A-Z][A-Z0-9 _-]*$")

#: Height of each upper floor above the one below, in inches: the dataset numbers floors (1, 2)
#: without heights; 3 in is the usual storey of a ruin kit.
STOREY = 3.0
#: Wall heights when a template gives none: dense ruins stand 5 in, light barricades 2 in.
WALL_HEIGHT = {"dense": 5.0, "light": 2.0, "exposed": 1.0}
#: Stand-in shapes where the dataset gives no measurement (length along the facing, width; mm).
SMALL_FLYING_BASE = [60.0, 35.0]
STAND_IN_HULL_IN = {"TITANIC": (8.0, 5.0), "AIRCRAFT": (7.0, 6.0), "": (4.75, 2.75)}

_lock = threading.Lock()
_loaded: dict = {}


def package():
    """The wh40kdc package, imported on first use: importing it costs about 0.9 s, which every
    `manage.py` command and worker start would otherwise pay."""
    import wh40kdc  # noqa: PLC0415 (see above)
    import wh40kdc.imports  # noqa: PLC0415
    import wh40kdc.terrain.resolve  # noqa: PLC0415

    return wh40kdc


def dataset():
    """The wh40kdc Dataset, loaded once per process (thread-safe, lazy)."""
    ds = _loaded.get("dataset")
    if ds is None:
        with _lock:
            ds = _loaded.get("dataset")
            if ds is None:
                ds = package().Dataset.embedded()
                _loaded["dataset"] = ds
    return ds


def version() -> str:
    return str(package().__version__)


def source_record(**extra) -> dict:
    """The scenario `source` for data from this dataset (FORMAT.md), plus `extra` fields."""
    return {
        "dataset": f"{DATASET_NAME} (wh40kdc)",
        "version": version(),
        "licence": f"{DATA_LICENCE}, {DATASET_AUTHOR}",
        **extra,
    }


# -- units ------------------------------------------------------------------------------------


def keyword(word: str) -> str | None:
    """A dataset keyword as ours: upper case, accents dropped; None when nothing is left."""
    ascii_word = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()
    cleaned = re.sub(r"[^A-Z0-9 _-]+", "", ascii_word.upper()).strip()[:40].strip()
    return cleaned if cleaned and _KEYWORD.match(cleaned) else None


def _hull_rect(length: float, width: float) -> list[list[float]]:
    half_l, half_w = length / 2, width / 2
    return [[half_l, -half_w], [half_l, half_w], [-half_l, half_w], [-half_l, -half_w]]


@dataclass(frozen=True)
class ModelGroup:
    """Models of one kind in a unit: their name, base (our format) and how many (min, max)."""

    name: str
    base: dict
    min: int
    max: int
    leader: bool = False


@dataclass(frozen=True)
class CatalogueUnit:
    """One unit record of the dataset, read into our terms."""

    id: str
    faction_id: str
    faction: str
    name: str
    move: float | None
    keywords: tuple[str, ...]
    min_models: int
    max_models: int
    groups: tuple[ModelGroup, ...]
    dataslate: str
    approximate: str = ""  # why a base is a stand-in, or ""

    @property
    def key(self) -> str:
        """Unique across factions (the same unit id is shared by several factions)."""
        return f"{self.faction_id}/{self.id}"

    @property
    def base_text(self) -> str:
        return ", ".join(dict.fromkeys(base_text(g.base) for g in self.groups))

    def count(self, wanted: int | None) -> int:
        """The model count chosen within the dataset's range (and our 60 a unit)."""
        n = self.min_models if wanted is None else int(wanted)
        return max(self.min_models, min(n, self.max_models, MODELS_PER_UNIT))

    def bases(self, count: int) -> list[dict]:
        """A base for each of `count` models: every group's minimum first (its leader), then the
        rest filled from the groups in order up to their maximum."""
        count = self.count(count)
        taken = [g.min for g in self.groups]
        left = count - sum(taken)
        order = sorted(range(len(self.groups)), key=lambda i: self.groups[i].leader)
        for i in order:
            if left <= 0:
                break
            extra = min(left, max(0, self.groups[i].max - taken[i]))
            taken[i] += extra
            left -= extra
        if left > 0:  # ranges that do not add up: the biggest group takes the rest
            taken[order[0]] += left
        bases = [dict(g.base) for g, n in zip(self.groups, taken, strict=True) for _ in range(n)]
        return bases[:count] if len(bases) >= count else bases + [bases[-1]] * (count - len(bases))

    def document(self, unit_id: str, army: str, count: int | None = None) -> dict:
        """A unit document (FORMAT.md) with its models at the origin; `place` puts them down."""
        unit: dict = {
            "id": unit_id,
            "army": army,
            "name": self.name[:100],
            "keywords": list(self.keywords),
            "source": {
                "unit_id": self.id,
                "faction_id": self.faction_id,
                "dataslate": self.dataslate,
            },
        }
        if self.move is not None:
            unit["move"] = self.move
        unit["models"] = [
            {"id": f"{unit_id}.{i}", "base": base, "x": 0.0, "y": 0.0}
            for i, base in enumerate(self.bases(self.count(count)), 1)
        ]
        return unit


def base_text(base: dict) -> str:
    kind, size = next(iter(base.items()))
    if kind == "round":
        return f"{size:g} mm round"
    if kind == "hull":
        xs = [p[0] for p in size]
        ys = [p[1] for p in size]
        return f"hull {max(xs) - min(xs):.1f} x {max(ys) - min(ys):.1f} in"
    return f"{size[0]:g} x {size[1]:g} mm {kind}"


class Catalogue:
    """Every unit of the dataset, read once, with search and closest-name lookup."""

    def __init__(self, ds):
        self.ds = ds
        factions = {f["id"]: f.get("name", f["id"]) for f in map(_raw, ds.factions.all)}
        hulls = {h["id"]: h for h in map(_raw, ds.hull_shapes.all)}
        compositions = {(c.get("unit_id"), c.get("faction_id")): c for c in ds.unit_compositions}
        units = []
        for raw in map(_raw, ds.units.all):
            units.append(_read_unit(raw, factions, hulls, compositions))
        self.units: tuple[CatalogueUnit, ...] = tuple(units)
        self.by_key = {u.key: u for u in units}
        self.factions = tuple(
            sorted({(u.faction_id, u.faction) for u in units}, key=lambda f: f[1].lower())
        )
        self._names = [_norm(u.name) for u in units]

    def search(self, query: str = "", faction: str = "", limit: int = 30) -> list[CatalogueUnit]:
        """Units whose name contains the query (case and accents ignored), those starting with it
        first; only the faction's when one is given."""
        q = _norm(query)
        hits = []
        for unit, name in zip(self.units, self._names, strict=True):
            if faction and unit.faction_id != faction:
                continue
            if q and q not in name:
                continue
            hits.append((not name.startswith(q), name, unit))
        hits.sort(key=lambda h: (h[0], h[1]))
        return [h[2] for h in hits[:limit]]

    def closest(self, name: str, faction: str = "", n: int = 5) -> list[CatalogueUnit]:
        """The units whose names are nearest to `name` (the faction's first)."""
        pool = [u for u in self.units if not faction or u.faction_id == faction] or list(self.units)
        names: dict[str, CatalogueUnit] = {}
        for u in pool:
            names.setdefault(_norm(u.name), u)
        matches = difflib.get_close_matches(_norm(name), list(names), n=n, cutoff=0.4)
        if len(matches) < n:  # words in common, for names that differ in length a lot
            words = set(_norm(name).split())
            extra = [k for k in names if words & set(k.split()) and k not in matches]
            matches += extra[: n - len(matches)]
        return [names[m] for m in matches]


def _raw(record):
    """The plain dict behind one of the package's record views."""
    return getattr(record, "raw", record)


def _norm(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", " ", ascii_text.lower()).strip()


def _read_unit(raw: dict, factions: dict, hulls: dict, compositions: dict) -> CatalogueUnit:
    keywords = tuple(dict.fromkeys(k for k in (keyword(w) for w in raw.get("keywords", [])) if k))
    keywords = keywords[:40]
    profiles = raw.get("profiles") or []
    moves = [p.get("M") for p in profiles if isinstance(p.get("M"), (int, float))]
    count = raw.get("model_count") or {}
    lo = max(1, int(count.get("min") or 1))
    hi = max(lo, int(count.get("max") or lo))
    notes: list[str] = []
    composition = compositions.get((raw["id"], raw.get("faction_id")))
    groups = []
    for m in (composition or {}).get("models", []):
        base = _base(m.get("base_size_mm") or raw.get("base_size_mm"), raw, keywords, hulls, notes)
        groups.append(
            ModelGroup(
                m.get("name") or raw["name"],
                base,
                int(m.get("min") or 0),
                int(m.get("max") or 0),
                bool(m.get("is_leader_model")),
            )
        )
    if not groups or sum(g.max for g in groups) == 0:
        base = _base(raw.get("base_size_mm"), raw, keywords, hulls, notes)
        groups = [ModelGroup(raw["name"], base, lo, hi)]
    return CatalogueUnit(
        id=raw["id"],
        faction_id=raw.get("faction_id", ""),
        faction=factions.get(raw.get("faction_id"), raw.get("faction_id", "")),
        name=raw["name"],
        # A unit moves as its slowest model (one M for the unit in our format).
        move=float(min(moves)) if moves else None,
        keywords=keywords,
        min_models=lo,
        max_models=hi,
        groups=tuple(groups),
        dataslate=(raw.get("game_version") or {}).get("dataslate", ""),
        approximate="; ".join(dict.fromkeys(notes)),
    )


def _base(b: dict | None, raw: dict, keywords: tuple[str, ...], hulls: dict, notes: list) -> dict:
    """A dataset base (base_size_mm) in our format (FORMAT.md models[].base)."""
    shape = (b or {}).get("shape")
    b = b or {}
    hull = hulls.get(raw["id"])
    if hull and hull.get("points") and (not b or b.get("draft")):
        # A measured hull beats a base the dataset itself marks as a draft. Dataset hulls are
        # in inches, y down, nose towards -y; ours face +x: turn by 90 degrees.
        points = [[round(-p["y"], 3), round(p["x"], 3)] for p in hull["points"]]
        return {"hull": _thin(points, VERTICES)}
    if shape == "round" and b.get("diameter"):
        return {"round": float(b["diameter"])}
    if shape in ("oval", "flying-base") and b.get("width") and b.get("length"):
        # Our oval is [long axis along the facing, short axis]: the larger figure first.
        return {"oval": sorted([float(b["width"]), float(b["length"])], reverse=True)}
    if shape == "flying-base":
        notes.append("small flying base taken as a 60 x 35 mm oval")
        return {"oval": list(SMALL_FLYING_BASE)}
    if shape in ("hull", "unique") or "VEHICLE" in keywords:
        size = next(v for k, v in STAND_IN_HULL_IN.items() if not k or k in keywords)
        notes.append(f"no hull measurements in the dataset: a {size[0]:g} x {size[1]:g} in box")
        return {"hull": _hull_rect(*size)}
    if "MOUNTED" in keywords:
        notes.append("no base in the dataset: a 75 x 42 mm oval")
        return {"oval": [75.0, 42.0]}
    notes.append("no base in the dataset: a 32 mm round base")
    return {"round": 32.0}


def _thin(points: list[list[float]], limit: int) -> list[list[float]]:
    """An outline with at most `limit` vertices, never smaller than the original."""
    if len(points) <= limit:
        return points
    polygon = Polygon(points)
    if not polygon.is_valid:
        polygon = polygon.buffer(0)
    return _outline(polygon, limit)


def _outline(geometry, limit: int) -> list[list[float]]:
    """The exterior of `geometry` grown a little and simplified to at most `limit` vertices, so
    it still covers everything it covered (a simplification moves edges by at most its
    tolerance, which the growth pays for)."""
    for tolerance in (0.02, 0.05, 0.1, 0.2, 0.4, 0.8):
        grown = geometry.buffer(tolerance, join_style="mitre")
        if isinstance(grown, MultiPolygon):
            grown = grown.convex_hull
        outline = Polygon(grown.exterior).simplify(tolerance, preserve_topology=True)
        coords = outline.exterior.coords[:-1]
        if 3 <= len(coords) <= limit and outline.is_valid:
            return [[round(x, 3), round(y, 3)] for x, y in coords]
    hull = geometry.convex_hull.buffer(0.05, join_style="mitre").simplify(0.05)
    return [[round(x, 3), round(y, 3)] for x, y in hull.exterior.coords[:-1]][:limit]


_catalogue_lock = threading.Lock()


def catalogue() -> Catalogue:
    """The unit catalogue, built once per process from the dataset."""
    cat = _loaded.get("catalogue")
    if cat is None:
        ds = dataset()
        with _catalogue_lock:
            cat = _loaded.get("catalogue")
            if cat is None:
                cat = Catalogue(ds)
                _loaded["catalogue"] = cat
    return cat


# -- layouts ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    id: str
    name: str
    deployment: str
    mission: str
    matchup_id: str
    dataslate: str
    raw: dict = field(repr=False, compare=False)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.deployment})"


def _title(slug: str) -> str:
    """A matchup id in words: "take-and-hold-vs-purge-the-foe" -> "Take and Hold vs Purge the
    Foe"."""
    small = {"and", "the", "of", "vs"}

    def words(side: str) -> str:
        parts = side.split("-")
        return " ".join(w if w in small and i else w.capitalize() for i, w in enumerate(parts))

    return " vs ".join(words(side) for side in slug.split("-vs-"))


class Layouts:
    """The dataset's terrain layouts, with their deployment pattern and mission matchup."""

    def __init__(self, ds):
        self.ds = ds
        patterns = {p["id"]: p for p in map(_raw, ds.deployment_patterns.all)}
        self.patterns = patterns
        self.templates = {t["id"]: t for t in map(_raw, ds.terrain_templates.all)}
        layouts = []
        for raw in map(_raw, ds.terrain_layouts.all):
            pattern = patterns.get(raw.get("deployment_pattern_id"), {})
            matchup = raw.get("mission_matchup_id") or ""
            layouts.append(
                Layout(
                    raw["id"],
                    raw.get("name", raw["id"]),
                    pattern.get("name", raw.get("deployment_pattern_id", "")),
                    _title(matchup) if matchup else "Any mission",
                    matchup,
                    (raw.get("game_version") or {}).get("dataslate", ""),
                    raw,
                )
            )
        self.all = tuple(layouts)
        self.by_id = {layout.id: layout for layout in layouts}

    @cached_property
    def matchups(self) -> list[tuple[str, list[Layout]]]:
        """Layouts grouped by mission matchup, in the dataset's order."""
        groups: dict[str, list[Layout]] = {}
        for layout in self.all:
            groups.setdefault(layout.mission, []).append(layout)
        return list(groups.items())

    def document(
        self, layout_id: str, names: tuple[str, str] = ("Attacker", "Defender"), name: str = ""
    ) -> dict:
        """A scenario (FORMAT.md) of the layout: the table, the terrain, both armies' deployment
        zones and the objective markers; no units yet."""
        layout = self.by_id.get(layout_id)
        if layout is None:
            raise KeyError(layout_id)
        raw = layout.raw
        board = raw.get("board") or {}
        width, height = float(board.get("width", 60)), float(board.get("height", 44))
        pattern = self.patterns.get(raw.get("deployment_pattern_id"), {})
        armies = [
            {"id": "attacker", "name": names[0][:100] or "Attacker"},
            {"id": "defender", "name": names[1][:100] or "Defender"},
        ]
        doc = {
            "format": "arbiter.scenario/1",
            "system": "wh40k-11e",
            "name": (name or f"{layout.name}, {layout.deployment}")[:200],
            "table": {"width": width, "height": height},
            "terrain": self.terrain(raw),
            "deployment_zones": _zones(pattern),
            "objectives": _objectives(raw, pattern, width, height),
            "armies": armies,
            "units": [],
            "turn": {"round": 1, "active_army": "attacker", "phase": "movement"},
            "source": source_record(
                layout={
                    "id": layout.id[:100],
                    "name": layout.name[:100],
                    "dataslate": layout.dataslate,
                    "deployment": layout.deployment[:100],
                    "mission": layout.mission[:100],
                }
            ),
        }
        return doc

    def terrain(self, raw: dict) -> list[dict]:
        """The layout's pieces as terrain features of RULES.md 1.5: one feature per area with the
        walls and upper floors of the ruins in it; a piece on its own (a wall, a barricade) is a
        feature of its own, `solid` where the template blocks."""
        resolved = self.ds.resolve_terrain(raw)
        by_piece = {p.get("id"): p for p in raw.get("pieces", [])}
        features: list[dict] = []
        current: dict | None = None
        for piece in resolved:
            if piece["piece_type"] == "area" or current is None or "--" not in (piece["id"] or ""):
                current = {"piece": piece, "parts": []}
                features.append(current)
                if piece["piece_type"] == "area":
                    continue
            current["parts"].append(piece)
        out = []
        for i, feature in enumerate(features, 1):
            out.append(
                self._feature(
                    feature["piece"], feature["parts"], by_piece.get(feature["piece"]["id"], {}), i
                )
            )
        return out

    def _feature(self, piece: dict, parts: list[dict], source: dict, index: int) -> dict:
        area = Polygon([(v["x"], v["y"]) for v in piece["vertices"]])
        if not area.is_valid:
            area = area.buffer(0)
        covered = [area]
        walls, floors = [], []
        categories = [piece.get("terrain_category")] + [p.get("terrain_category") for p in parts]
        rank = {"exposed": 0, "light": 1, "dense": 2}
        named = [c for c in categories if c in rank]
        category = max(named, key=rank.__getitem__) if named else "light"
        top = 0.0
        template = self.templates.get(source.get("template", ""), {})
        for part in parts or ([piece] if piece.get("walls") else []):
            part_template = self._part_template(part, template)
            part_category = part.get("terrain_category") or category
            wall_height = float(
                part_template.get("default_height_inches") or WALL_HEIGHT.get(part_category, 2.0)
            )
            for wall in part.get("walls", []):
                path = [[round(p["x"], 3), round(p["y"], 3)] for p in wall["points"]]
                path = [p for j, p in enumerate(path) if j == 0 or p != path[j - 1]]
                if len(path) < 2:
                    continue
                thickness = float(wall.get("thickness", 0.25))
                walls.append(
                    {
                        "path": path[:VERTICES],
                        "height": wall_height,
                        "thickness": thickness,
                    }
                )
                covered.append(LineString(path).buffer(thickness / 2))
                top = max(top, wall_height)
            floor = self._floor(part, part_template, piece, source)
            if floor:
                floors.append(floor)
                covered.append(Polygon(floor["footprint"]))
                top = max(top, floor["height"])
            covered.append(Polygon([(v["x"], v["y"]) for v in part["vertices"]]).buffer(0))
        height = source.get("height_inches") or template.get("default_height_inches")
        feature = {
            "id": f"t{index}",
            "type": "ruin" if walls or floors else (template.get("name") or "area").lower()[:40],
            "name": (piece.get("name") or "")[:100],
            "category": category,
            "height": float(max(top, float(height or 0))),
            "footprint": _outline(unary_union(covered), VERTICES),
        }
        if (
            template.get("default_blocking")
            and template.get("kind") == "feature"
            and not template.get("ground_accessible", True)
            and not floors
        ):
            feature["solid"] = True
        if walls:
            feature["walls"] = walls[:20]
        if floors:
            feature["floors"] = floors[:10]
        return feature

    def _part_template(self, part: dict, area_template: dict) -> dict:
        if not area_template.get("features"):
            return area_template
        index = part["id"].rsplit("feature-", 1)[-1] if part.get("id") else ""
        for j, feat in enumerate(area_template["features"], 1):
            if feat.get("id") == part["id"].split("--")[-1] or str(j) == index:
                return self.templates.get(feat["template"], {})
        return {}

    def _floor(self, part: dict, part_template: dict, piece: dict, source: dict) -> dict | None:
        """A ruin's upper floor, placed like its walls (the package's own transform)."""
        upper = part_template.get("upper_floor")
        if not upper or not upper.get("footprint"):
            return None
        resolve = package().terrain.resolve
        area_template = self.templates.get(source.get("template", ""), {})
        feat = next(
            (
                f
                for j, f in enumerate(area_template.get("features") or [], 1)
                if part["id"].endswith(f"--{f.get('id') or f'feature-{j}'}")
            ),
            None,
        )
        ring = [{"points": [dict(p) for p in resolve.footprint_vertices(upper["footprint"])]}]
        if feat is not None:
            # The package's own transform for walls places any polyline of the template.
            placed = resolve._resolve_walls_composed(
                ring,
                part_template["footprint"],
                feat["position"],
                feat.get("rotation_degrees") or 0,
                feat.get("mirror") or "none",
                source["position"],
                source.get("rotation_degrees") or 0,
                source.get("mirror") or "none",
            )
        else:
            placed = resolve._resolve_walls(
                ring,
                part_template["footprint"],
                source["position"],
                source.get("rotation_degrees") or 0,
                source.get("mirror") or "none",
            )
        points = [[round(p["x"], 3), round(p["y"], 3)] for p in placed[0]["points"]]
        if len(points) < 3 or Polygon(points).area < 1e-6:
            return None
        return {
            "footprint": points[:VERTICES],
            "height": STOREY * float(upper.get("floor") or 1),
        }


def _shape_points(entry: dict) -> list[list[float]]:
    footprint_vertices = package().terrain.resolve.footprint_vertices
    at = entry.get("position") or {"x": 0, "y": 0}
    return [
        [round(v["x"] + at["x"], 4), round(v["y"] + at["y"], 4)]
        for v in footprint_vertices(entry["shape"])
    ]


#: The dataset's two players; the first army of a layout scenario attacks.
PLAYERS = ("attacker", "defender")


def _zones(pattern: dict) -> list[dict]:
    zones = []
    for zone in pattern.get("zones", []):
        player = zone.get("player")
        if player in PLAYERS:
            zones.append(
                {
                    "army": player,
                    "name": zone.get("name", "")[:100],
                    "footprint": _shape_points(zone),
                }
            )
    return zones


def _objectives(raw: dict, pattern: dict, width: float, height: float) -> list[dict]:
    """The layout's own objective markers where it places them, else the deployment's."""
    points = [
        (p["objective"]["position"]["x"], p["objective"]["position"]["y"])
        for p in raw.get("pieces", [])
        if (p.get("objective") or {}).get("position")
    ]
    if not points:
        points = [(o["x"], o["y"]) for o in pattern.get("objectives", [])]
    out = []
    for i, (x, y) in enumerate(points, 1):
        x, y = min(max(float(x), 0.0), width), min(max(float(y), 0.0), height)
        out.append({"id": f"obj-{i}", "name": str(i), "x": round(x, 3), "y": round(y, 3)})
    return out[:20]


def layouts() -> Layouts:
    """The layouts, read once per process from the dataset."""
    found = _loaded.get("layouts")
    if found is None:
        ds = dataset()
        with _catalogue_lock:
            found = _loaded.get("layouts")
            if found is None:
                found = Layouts(ds)
                _loaded["layouts"] = found
    return found
