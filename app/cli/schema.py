"""`clusterplan schema`: the scenario's JSON Schema."""

from __future__ import annotations

import argparse

from app.cli.common import print_json, scenario_model


def register(sub) -> None:
    sub.add_parser("schema", help="print the scenario's JSON Schema")


def run(args: argparse.Namespace) -> int:
    print_json("clusterplan schema", scenario_model.Scenario.model_json_schema())
    return 0
