"""The one figure style (cultalign.core.figures): readable cell numbers, display names, 300 dpi
and the synthetic mark, taken from the running job."""

from __future__ import annotations

import numpy as np
from PIL import Image

from cultalign.core import figures as figs
from cultalign.core.job import Job


def test_cell_text_is_white_on_dark_and_black_on_light_cells():
    assert figs.text_color((0.0, 0.0, 0.0, 1)) == "white"
    assert figs.text_color((1.0, 1.0, 1.0, 1)) == "black"
    viridis = figs.plt.get_cmap("viridis")
    assert figs.text_color(viridis(0.0)) == "white"  # dark purple
    assert figs.text_color(viridis(1.0)) == "black"  # yellow


def test_heatmap_numbers_follow_the_cell_colour():
    fig, ax = figs.plt.subplots()
    figs.heatmap(ax, np.array([[0.0, 1.0], [np.nan, 0.5]]), ["a", "b"], ["x", "y"], vmin=0, vmax=1)
    texts = {t.get_text(): t.get_color() for t in ax.texts}
    assert texts["0.00"] == "white" and texts["1.00"] == "black" and "n/a" in texts
    figs.plt.close(fig)


def test_display_names_replace_model_ids_whole():
    names = {"llama": "Llama 3", "llama-base": "Llama 3 (base)"}
    assert figs.display("llama-base vs panel", names) == "Llama 3 (base) vs panel"
    assert figs.display("llama", names) == "Llama 3"
    assert figs.display("panel", names) == "panel"


def _png_dpi(path) -> float:
    return Image.open(path).info["dpi"][0]


def test_save_writes_300_dpi_and_marks_synthetic_inputs(tmp_path):
    def draw():
        fig, ax = figs.plt.subplots(figsize=(2, 2))
        ax.plot([0, 1], [0, 1])
        return fig

    real = figs.save(draw(), tmp_path / "real.png", synthetic=[])
    fig = draw()
    fake = figs.save(fig, tmp_path / "demo.png", synthetic=["pact.human.prolific_export"])
    assert round(_png_dpi(real)) == 300 and round(_png_dpi(fake)) == 300
    marks = [t.get_text() for t in fig.texts]
    assert any(figs.SYNTHETIC_MARK in t and "pact.human.prolific_export" in t for t in marks)
    # the mark adds a visible band: the marked figure is taller than the real one
    assert Image.open(fake).size[1] > Image.open(real).size[1]


def test_mark_and_display_names_come_from_the_running_job(tmp_path, restore_streams, monkeypatch):
    from conftest import FakeSnakemake

    monkeypatch.setattr("cultalign.core.job._CURRENT", None)  # restored after the test

    Job(FakeSnakemake(tmp_path, [tmp_path / "f.png"],
                      params={"synthetic_inputs": ["personas.human.path"], "model_names": {"m1": "Model One"}}))
    assert figs.synthetic_inputs() == ["personas.human.path"]
    assert figs.display("m1") == "Model One"
