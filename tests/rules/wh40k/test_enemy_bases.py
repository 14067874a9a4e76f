"""The enemy models near a path segment (rules/wh40k/moving.py `enemy_bases`, issue 16): one
numpy step finds the same models, in the same order, as testing each model's box in Python."""

import random

from rules import Situation
from rules.wh40k.moving import enemy_bases
from tests.documents import worst_document


def near_one_by_one(situation, unit, a, b, radius):
    """The test `_trace` made model by model: (unit, model) in the situation's order."""
    found = []
    for enemy in situation.enemies_of(unit):
        for m in enemy.models:
            reach = radius + m.base.radius
            if (
                m.x < min(a[0], b[0]) - reach
                or m.x > max(a[0], b[0]) + reach
                or m.y < min(a[1], b[1]) - reach
                or m.y > max(a[1], b[1]) + reach
            ):
                continue
            found.append((enemy.id, m.id))
    return found


def test_the_models_near_a_segment_are_those_model_by_model_testing_finds():
    situation = Situation.from_document(worst_document(models=240, hull_vertices=0, terrain=4))
    rng = random.Random(5)
    hits = 0
    for unit in situation.units:
        bases = enemy_bases(situation, unit)
        assert enemy_bases(situation, unit) is bases  # once per situation and army
        assert len(bases.models) == sum(len(e.models) for e in situation.enemies_of(unit))
        for _ in range(40):
            m = rng.choice(unit.models)
            a = (m.x, m.y)
            b = (m.x + rng.uniform(-12, 12), m.y + rng.uniform(-12, 12))
            for radius in (m.base.radius, 0.0, 2.5):
                ours = [
                    (bases.units[bases.owner[k]].id, bases.models[k].id)
                    for k in bases.near(a, b, radius).tolist()
                ]
                assert ours == near_one_by_one(situation, unit, a, b, radius)
                hits += len(ours)
    assert hits > 0
