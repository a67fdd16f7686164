"""``str(tensor)`` prints PyTorch's text (``torch/_tensor_str.py``'s layout), dtype names aside
(``tinygrad_lite.float64`` where PyTorch prints ``torch.float64``).

1. Fixed cases against the strings PyTorch 2.13 printed for them (no PyTorch needed).
2. With PyTorch installed: the same cases printed by PyTorch itself, and a differential check of
   ~200 seeded random tensors (0-D to 4-D, empty dimensions, long rows, mixed magnitudes, -0.0,
   inf/nan, ints, bools, float16/bfloat16/float64, requires_grad and grad_fn, print options and
   the default dtype). Only the dtype prefix is normalised, and grad_fn names are left out
   (the libraries name some backward nodes differently).

Differences consciously left:

* dtype names: a suffix is measured as PyTorch's text (``dtype=torch.float16``) when deciding
  whether it goes on a line of its own, so that lines break where PyTorch's do; a line ending in
  ``dtype=tinygrad_lite...`` may then run up to 8 characters past ``linewidth``.
* forward-AD dual tensors: PyTorch adds ``tangent=...``; tinygrad_lite keeps tangents outside
  the tensor (``autograd.forward_ad``, a layer above printing) and prints ``requires_grad=True``.
* complex tensors and devices other than the CPU and ``meta`` do not exist in tinygrad_lite.

Run as a script (``python tests/test_format_parity.py [COUNT] [SEED]``) for the checker's
report: each tensor printed differently, then the number of differences."""

from __future__ import annotations

import functools
import sys
import time

import numpy as np
import pytest

import tinygrad_lite as tl

INF, NAN = float("inf"), float("nan")


def _normalise(text: str) -> str:
    """The text with tinygrad_lite's dtype prefix as PyTorch's, and without grad_fn names."""
    return text.replace("tinygrad_lite.", "torch.").split("grad_fn=<")[0]


def _print_with(lib, options, make, default: str = "float32") -> str:
    """``str(make())`` under print ``options`` and default dtype ``default`` in ``lib``."""
    lib.set_default_dtype(getattr(lib, default))
    if options:
        lib.set_printoptions(**options)
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # float16 casts of huge values
            return str(make())
    finally:
        lib.set_printoptions(profile="default")
        lib.set_default_dtype(lib.float32)


# -- fixed cases ---------------------------------------------------------------------------------

def _wave(n: int, scale: float = 1.0) -> np.ndarray:
    """Values of mixed sign: sin(1), sin(2), ..., sin(n), times ``scale``."""
    return np.sin(np.arange(1, n + 1)) * scale


def _f32(n: int, shape: tuple, scale: float = 1.0) -> np.ndarray:
    return _wave(n, scale).reshape(shape).astype(np.float32)


# (name, builder of the tensor in lib (tinygrad_lite or torch), set_printoptions arguments)
CASES = [
    ("row_of_8_keeps_one_line", lambda lib: lib.tensor(_f32(8, (1, 8), 0.5)), None),
    ("rows_of_13", lambda lib: lib.tensor(_f32(26, (2, 13))), None),
    ("rows_of_40_ints",
     lambda lib: lib.tensor((_wave(120) * 1000).astype(np.int64).reshape(3, 40)), None),
    ("long_vector_summarised", lambda lib: lib.tensor(_f32(1200, (1200,))), None),
    ("matrix_summarised", lambda lib: lib.tensor(_f32(6000, (40, 150), 100)), None),
    ("three_dims", lambda lib: lib.tensor(_f32(24, (2, 3, 4))), None),
    ("four_dims_summarised", lambda lib: lib.tensor(np.arange(1200).reshape(10, 2, 3, 20)),
     None),
    ("scalar", lambda lib: lib.tensor(3.25), None),
    ("scalar_int", lambda lib: lib.tensor(-7), None),
    ("scalar_negative_zero", lambda lib: lib.tensor(-0.0), None),
    ("whole_floats", lambda lib: lib.tensor([[1.0, -20.0, 300.0], [0.0, -0.0, 5.0]]), None),
    ("sci_range", lambda lib: lib.tensor([1e-5, 1.0, 123.0]), None),
    ("sci_large", lambda lib: lib.tensor([1e9, 2.0]), None),
    ("inf_nan", lambda lib: lib.tensor([[INF, -INF, NAN], [0.5, -0.0, 2.0]]), None),
    ("whole_with_inf", lambda lib: lib.tensor([1.0, INF, NAN, -3.0]), None),
    ("only_zeros_and_nan", lambda lib: lib.tensor([0.0, NAN, -0.0]), None),
    ("float64", lambda lib: lib.tensor(_wave(12).reshape(3, 4)), None),
    ("float16", lambda lib: lib.tensor(_wave(10, 300).astype(np.float16)), None),
    ("bfloat16", lambda lib: lib.tensor(_f32(10, (10,), 3)).to(lib.bfloat16), None),
    ("int32_wraps_dtype",
     lambda lib: lib.tensor((_wave(30) * 1e6).astype(np.int32).reshape(2, 15)), None),
    ("uint8", lambda lib: lib.tensor(np.arange(0, 256, 37, dtype=np.uint8)), None),
    ("bools", lambda lib: lib.tensor(_wave(30).reshape(3, 10) > 0), None),
    ("empty_vector", lambda lib: lib.tensor(np.zeros(0, np.float32)), None),
    ("empty_int_vector", lambda lib: lib.tensor(np.zeros(0, np.int64)), None),
    ("empty_matrix", lambda lib: lib.tensor(np.zeros((2, 0, 3), np.float32)), None),
    ("requires_grad", lambda lib: lib.tensor(_f32(20, (2, 10)), requires_grad=True), None),
    ("grad_fn_on_new_line",
     lambda lib: lib.tensor(_wave(4).reshape(1, 4), requires_grad=True) * 2, None),
    ("dtype_suffix_measured_as_torch",
     lambda lib: lib.tensor(_wave(10).reshape(2, 5).astype(np.float16)), None),
    ("dtype_suffix_on_new_line",
     lambda lib: lib.tensor(_wave(33).reshape(3, 11).astype(np.float16)), None),
    ("precision_2", lambda lib: lib.tensor(_f32(6, (6,))), {"precision": 2}),
    ("precision_0", lambda lib: lib.tensor(_f32(6, (6,), 10)), {"precision": 0}),
    ("threshold_5", lambda lib: lib.tensor(_f32(36, (6, 6))), {"threshold": 5}),
    ("edgeitems_1", lambda lib: lib.tensor(np.arange(60).reshape(3, 4, 5)),
     {"threshold": 10, "edgeitems": 1}),
    ("edgeitems_0", lambda lib: lib.tensor(np.arange(60).reshape(3, 4, 5)),
     {"threshold": 10, "edgeitems": 0}),
    ("linewidth_40", lambda lib: lib.tensor(_f32(20, (2, 10))), {"linewidth": 40}),
    ("linewidth_90", lambda lib: lib.tensor(_f32(40, (2, 20))), {"linewidth": 90}),
    ("sci_mode_on", lambda lib: lib.tensor([1.5, -2.0, 300.0]), {"sci_mode": True}),
    ("sci_mode_off", lambda lib: lib.tensor([1e-6, 1.0, 5e5]), {"sci_mode": False}),
    ("profile_short", lambda lib: lib.tensor(_f32(1100, (1100,))), {"profile": "short"}),
]

# what PyTorch 2.13 printed for each case
EXPECTED = {
    "row_of_8_keeps_one_line": """\
tensor([[ 0.4207,  0.4546,  0.0706, -0.3784, -0.4795, -0.1397,  0.3285,  0.4947]])""",
    "rows_of_13": """\
tensor([[ 0.8415,  0.9093,  0.1411, -0.7568, -0.9589, -0.2794,  0.6570,  0.9894,
          0.4121, -0.5440, -1.0000, -0.5366,  0.4202],
        [ 0.9906,  0.6503, -0.2879, -0.9614, -0.7510,  0.1499,  0.9129,  0.8367,
         -0.0089, -0.8462, -0.9056, -0.1324,  0.7626]])""",
    "rows_of_40_ints": """\
tensor([[ 841,  909,  141, -756, -958, -279,  656,  989,  412, -544, -999, -536,
          420,  990,  650, -287, -961, -750,  149,  912,  836,   -8, -846, -905,
         -132,  762,  956,  270, -663, -988, -404,  551,  999,  529, -428, -991,
         -643,  296,  963,  745],
        [-158, -916, -831,   17,  850,  901,  123, -768, -953, -262,  670,  986,
          395, -558, -999, -521,  436,  992,  636, -304, -966, -739,  167,  920,
          826,  -26, -855, -897, -114,  773,  951,  253, -676, -985, -387,  566,
          999,  513, -444, -993],
        [-629,  313,  968,  733, -176, -923, -821,   35,  860,  893,  105, -779,
         -948, -245,  683,  983,  379, -573, -999, -506,  452,  994,  622, -321,
         -970, -727,  184,  926,  816,  -44, -864, -889,  -97,  784,  945,  236,
         -689, -981, -371,  580]])""",
    "long_vector_summarised": """\
tensor([ 0.8415,  0.9093,  0.1411,  ..., -0.8690, -0.8859, -0.0883])""",
    "matrix_summarised": """\
tensor([[ 84.1471,  90.9297,  14.1120,  ..., -33.8333, -97.4649, -71.4876],
        [ 20.2150,  93.3321,  80.6401,  ...,  43.6138, -52.1577, -99.9756],
        [-55.8764,  39.5953,  98.6633,  ...,  94.8273,  24.5223, -68.3284],
        ...,
        [ 19.3000, -72.1372, -97.2518,  ..., -75.0669,  15.0354,  91.3142],
        [ 83.6391,  -0.9334, -84.6477,  ..., -99.7209, -60.1615,  34.7102],
        [ 97.6694,  70.8319, -21.1282,  ..., -64.3930, -99.1713, -42.7719]])""",
    "three_dims": """\
tensor([[[ 0.8415,  0.9093,  0.1411, -0.7568],
         [-0.9589, -0.2794,  0.6570,  0.9894],
         [ 0.4121, -0.5440, -1.0000, -0.5366]],

        [[ 0.4202,  0.9906,  0.6503, -0.2879],
         [-0.9614, -0.7510,  0.1499,  0.9129],
         [ 0.8367, -0.0089, -0.8462, -0.9056]]])""",
    "four_dims_summarised": """\
tensor([[[[   0,    1,    2,  ...,   17,   18,   19],
          [  20,   21,   22,  ...,   37,   38,   39],
          [  40,   41,   42,  ...,   57,   58,   59]],

         [[  60,   61,   62,  ...,   77,   78,   79],
          [  80,   81,   82,  ...,   97,   98,   99],
          [ 100,  101,  102,  ...,  117,  118,  119]]],


        [[[ 120,  121,  122,  ...,  137,  138,  139],
          [ 140,  141,  142,  ...,  157,  158,  159],
          [ 160,  161,  162,  ...,  177,  178,  179]],

         [[ 180,  181,  182,  ...,  197,  198,  199],
          [ 200,  201,  202,  ...,  217,  218,  219],
          [ 220,  221,  222,  ...,  237,  238,  239]]],


        [[[ 240,  241,  242,  ...,  257,  258,  259],
          [ 260,  261,  262,  ...,  277,  278,  279],
          [ 280,  281,  282,  ...,  297,  298,  299]],

         [[ 300,  301,  302,  ...,  317,  318,  319],
          [ 320,  321,  322,  ...,  337,  338,  339],
          [ 340,  341,  342,  ...,  357,  358,  359]]],


        ...,


        [[[ 840,  841,  842,  ...,  857,  858,  859],
          [ 860,  861,  862,  ...,  877,  878,  879],
          [ 880,  881,  882,  ...,  897,  898,  899]],

         [[ 900,  901,  902,  ...,  917,  918,  919],
          [ 920,  921,  922,  ...,  937,  938,  939],
          [ 940,  941,  942,  ...,  957,  958,  959]]],


        [[[ 960,  961,  962,  ...,  977,  978,  979],
          [ 980,  981,  982,  ...,  997,  998,  999],
          [1000, 1001, 1002,  ..., 1017, 1018, 1019]],

         [[1020, 1021, 1022,  ..., 1037, 1038, 1039],
          [1040, 1041, 1042,  ..., 1057, 1058, 1059],
          [1060, 1061, 1062,  ..., 1077, 1078, 1079]]],


        [[[1080, 1081, 1082,  ..., 1097, 1098, 1099],
          [1100, 1101, 1102,  ..., 1117, 1118, 1119],
          [1120, 1121, 1122,  ..., 1137, 1138, 1139]],

         [[1140, 1141, 1142,  ..., 1157, 1158, 1159],
          [1160, 1161, 1162,  ..., 1177, 1178, 1179],
          [1180, 1181, 1182,  ..., 1197, 1198, 1199]]]])""",
    "scalar": """\
tensor(3.2500)""",
    "scalar_int": """\
tensor(-7)""",
    "scalar_negative_zero": """\
tensor(-0.)""",
    "whole_floats": """\
tensor([[  1., -20., 300.],
        [  0.,  -0.,   5.]])""",
    "sci_range": """\
tensor([1.0000e-05, 1.0000e+00, 1.2300e+02])""",
    "sci_large": """\
tensor([1.0000e+09, 2.0000e+00])""",
    "inf_nan": """\
tensor([[   inf,   -inf,    nan],
        [0.5000, -0.0000, 2.0000]])""",
    "whole_with_inf": """\
tensor([ 1., inf, nan, -3.])""",
    "only_zeros_and_nan": """\
tensor([0., nan, -0.])""",
    "float64": """\
tensor([[ 0.8415,  0.9093,  0.1411, -0.7568],
        [-0.9589, -0.2794,  0.6570,  0.9894],
        [ 0.4121, -0.5440, -1.0000, -0.5366]], dtype=torch.float64)""",
    "float16": """\
tensor([ 252.5000,  272.7500,   42.3438, -227.0000, -287.7500,  -83.8125,
         197.1250,  296.7500,  123.6250, -163.2500], dtype=torch.float16)""",
    "bfloat16": """\
tensor([ 2.5312,  2.7344,  0.4238, -2.2656, -2.8750, -0.8398,  1.9688,  2.9688,
         1.2344, -1.6328], dtype=torch.bfloat16)""",
    "int32_wraps_dtype": """\
tensor([[ 841470,  909297,  141120, -756802, -958924, -279415,  656986,  989358,
          412118, -544021, -999990, -536572,  420167,  990607,  650287],
        [-287903, -961397, -750987,  149877,  912945,  836655,   -8851, -846220,
         -905578, -132351,  762558,  956375,  270905, -663633, -988031]],
       dtype=torch.int32)""",
    "uint8": """\
tensor([  0,  37,  74, 111, 148, 185, 222], dtype=torch.uint8)""",
    "bools": """\
tensor([[ True,  True,  True, False, False, False,  True,  True,  True, False],
        [False, False,  True,  True,  True, False, False, False,  True,  True],
        [ True, False, False, False, False,  True,  True,  True, False, False]])""",
    "empty_vector": """\
tensor([])""",
    "empty_int_vector": """\
tensor([], dtype=torch.int64)""",
    "empty_matrix": """\
tensor([], size=(2, 0, 3))""",
    "requires_grad": """\
tensor([[ 0.8415,  0.9093,  0.1411, -0.7568, -0.9589, -0.2794,  0.6570,  0.9894,
          0.4121, -0.5440],
        [-1.0000, -0.5366,  0.4202,  0.9906,  0.6503, -0.2879, -0.9614, -0.7510,
          0.1499,  0.9129]], requires_grad=True)""",
    "grad_fn_on_new_line": """\
tensor([[ 1.6829,  1.8186,  0.2822, -1.5136]], dtype=torch.float64,
       grad_fn=<MulBackward0>)""",
    "dtype_suffix_measured_as_torch": """\
tensor([[ 0.8413,  0.9092,  0.1411, -0.7568, -0.9590],
        [-0.2793,  0.6572,  0.9893,  0.4121, -0.5439]], dtype=torch.float16)""",
    "dtype_suffix_on_new_line": """\
tensor([[ 0.8413,  0.9092,  0.1411, -0.7568, -0.9590, -0.2793,  0.6572,  0.9893,
          0.4121, -0.5439, -1.0000],
        [-0.5366,  0.4202,  0.9907,  0.6504, -0.2878, -0.9614, -0.7510,  0.1499,
          0.9131,  0.8364, -0.0089],
        [-0.8462, -0.9058, -0.1323,  0.7627,  0.9565,  0.2710, -0.6636, -0.9878,
         -0.4041,  0.5513,  1.0000]], dtype=torch.float16)""",
    "precision_2": """\
tensor([ 0.84,  0.91,  0.14, -0.76, -0.96, -0.28])""",
    "precision_0": """\
tensor([  8,   9,   1,  -8, -10,  -3])""",
    "threshold_5": """\
tensor([[ 0.8415,  0.9093,  0.1411, -0.7568, -0.9589, -0.2794],
        [ 0.6570,  0.9894,  0.4121, -0.5440, -1.0000, -0.5366],
        [ 0.4202,  0.9906,  0.6503, -0.2879, -0.9614, -0.7510],
        [ 0.1499,  0.9129,  0.8367, -0.0089, -0.8462, -0.9056],
        [-0.1324,  0.7626,  0.9564,  0.2709, -0.6636, -0.9880],
        [-0.4040,  0.5514,  0.9999,  0.5291, -0.4282, -0.9918]])""",
    "edgeitems_1": """\
tensor([[[ 0,  ...,  4],
         ...,
         [15,  ..., 19]],

        ...,

        [[40,  ..., 44],
         ...,
         [55,  ..., 59]]])""",
    "edgeitems_0": """\
tensor([...], size=(3, 4, 5))""",
    "linewidth_40": """\
tensor([[ 0.8415,  0.9093,  0.1411,
         -0.7568, -0.9589, -0.2794,
          0.6570,  0.9894,  0.4121,
         -0.5440],
        [-1.0000, -0.5366,  0.4202,
          0.9906,  0.6503, -0.2879,
         -0.9614, -0.7510,  0.1499,
          0.9129]])""",
    "linewidth_90": """\
tensor([[ 0.8415,  0.9093,  0.1411, -0.7568, -0.9589, -0.2794,  0.6570,  0.9894,  0.4121,
         -0.5440, -1.0000, -0.5366,  0.4202,  0.9906,  0.6503, -0.2879, -0.9614, -0.7510,
          0.1499,  0.9129],
        [ 0.8367, -0.0089, -0.8462, -0.9056, -0.1324,  0.7626,  0.9564,  0.2709, -0.6636,
         -0.9880, -0.4040,  0.5514,  0.9999,  0.5291, -0.4282, -0.9918, -0.6435,  0.2964,
          0.9638,  0.7451]])""",
    "sci_mode_on": """\
tensor([ 1.5000e+00, -2.0000e+00,  3.0000e+02])""",
    "sci_mode_off": """\
tensor([     0.0000,      1.0000, 500000.0000])""",
    "profile_short": """\
tensor([ 0.84,  0.91,  ..., -0.53,  0.43])""",
}


@pytest.mark.parametrize("name, build, options", CASES, ids=[c[0] for c in CASES])
def test_prints_as_pytorch_printed(name, build, options):
    assert _normalise(_print_with(tl, options, functools.partial(build, tl))) == \
        _normalise(EXPECTED[name])


def test_profile_full_prints_every_entry():
    text = _print_with(tl, {"profile": "full"}, lambda: tl.tensor(np.arange(1001) % 3))
    lines = text.splitlines()  # PyTorch: 24 entries a line, 42 lines, no "..."
    assert "..." not in text and len(lines) == 42
    row = ", ".join(["0", "1", "2"] * 8) + ","
    assert lines[0] == "tensor([" + row and lines[1] == " " * 8 + row
    assert lines[-1] == " " * 8 + ", ".join((["0", "1", "2"] * 6)[:17]) + "])"


def test_set_printoptions_resets_sci_mode_and_profile_overrides():
    try:
        tl.set_printoptions(sci_mode=True)
        tl.set_printoptions(precision=2)  # sci_mode not passed: automatic again (PyTorch)
        assert repr(tl.tensor([1.5, 2.0])) == "tensor([1.50, 2.00])"
        tl.set_printoptions(profile="short", edgeitems=1, threshold=3)
        assert repr(tl.arange(10)) == "tensor([0,  ..., 9])"
    finally:
        tl.set_printoptions(profile="default")
    assert repr(tl.tensor([1.12345])) == "tensor([1.1235])"


def test_default_dtype_decides_the_dtype_suffix():
    tl.set_default_dtype(tl.float64)
    try:  # PyTorch: tensor([1.5000]) and tensor([1.5000], dtype=torch.float32)
        assert repr(tl.tensor([1.5])) == "tensor([1.5000])"
        assert repr(tl.tensor([1.5], dtype=tl.float32)) == \
            "tensor([1.5000], dtype=tinygrad_lite.float32)"
        assert repr(tl.zeros(0, dtype=tl.float32)) == "tensor([], dtype=tinygrad_lite.float32)"
    finally:
        tl.set_default_dtype(tl.float32)


def test_meta_tensor_suffixes_wrap_as_pytorch():
    assert repr(tl.zeros(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    try:
        tl.set_printoptions(linewidth=20)
        assert repr(tl.zeros(2, 3, device="meta", dtype=tl.int64)) == (
            "tensor(...,\n       device='meta',\n       size=(2, 3),\n"
            "       dtype=tinygrad_lite.int64)")
    finally:
        tl.set_printoptions(profile="default")


def test_large_tensor_prints_fast():
    x = tl.randn(1000, 1000)
    # CPU time of this process, not wall time: what runs beside the suite (pytest-xdist's other
    # workers) must not make printing look slow
    start = time.process_time()
    text = repr(x)
    assert time.process_time() - start < 0.5 and len(text.splitlines()) == 7


# -- against PyTorch itself --------------------------------------------------------------------

@pytest.mark.parametrize("name, build, options", CASES, ids=[c[0] for c in CASES])
def test_expected_strings_are_pytorchs(name, build, options):
    torch = pytest.importorskip("torch")
    assert _print_with(torch, options, functools.partial(build, torch)) == EXPECTED[name]


_SHAPES = [(), (1,), (5,), (0,), (2, 0), (0, 3), (3, 0, 2), (1, 8), (2, 13), (3, 40), (1200,),
           (2, 3), (4, 1), (3, 4, 5), (2, 3, 4, 5), (7, 7), (1, 1, 1, 1), (9,), (2, 1, 40),
           (1001,), (8, 130), (40, 30), (2, 2, 300), (3, 2, 2, 2), (12,), (1, 30)]
_KINDS = ["float32"] * 6 + ["float64", "float16", "bfloat16", "int64", "int64", "int32", "uint8",
                            "int8", "bool", "bool"]
_FLOATS = ("float32", "float64", "float16", "bfloat16")
# print options for set_printoptions (None: the defaults); both libraries get the same ones
_OPTIONS = [None, None, None, {"precision": 2}, {"precision": 0}, {"precision": 7},
            {"threshold": 5}, {"threshold": 20, "edgeitems": 1}, {"edgeitems": 0, "threshold": 4},
            {"linewidth": 40}, {"linewidth": 140}, {"linewidth": 10}, {"sci_mode": True},
            {"sci_mode": False}, {"profile": "short"}, {"profile": "full"},
            {"profile": "short", "precision": 6}, {"threshold": 10, "edgeitems": 5}]


def _values(rng: np.random.Generator, shape: tuple, kind: str) -> np.ndarray:
    """Random data of ``shape`` for a ``kind`` of dtype, with mixed magnitudes and specials."""
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind not in _FLOATS:
        high = {"uint8": 256, "int8": 128}.get(kind, 10 ** int(rng.integers(1, 9)))
        return rng.integers(0 if kind == "uint8" else -high, high, size=shape).astype(kind)
    style = int(rng.integers(0, 8))
    scale = 10.0 ** int(rng.integers(-9, 10))
    if style == 0:  # whole numbers
        data = rng.integers(-50, 50, size=shape).astype(np.float64)
    elif style == 1:  # one magnitude
        data = rng.standard_normal(shape) * scale
    elif style == 2:  # many magnitudes
        data = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 7, size=shape)
    elif style == 3:  # whole numbers, large
        data = np.round(rng.standard_normal(shape) * scale)
    else:  # the common case: values near 1
        data = rng.standard_normal(shape)
    data = np.asarray(data, dtype=np.float64)
    if data.size and rng.random() < 0.35:  # -0.0, 0.0, inf and nan here and there
        flat = data.reshape(-1)
        for special in (-0.0, 0.0, INF, -INF, NAN):
            if rng.random() < 0.4:
                flat[rng.integers(0, flat.size, size=1 + flat.size // 10)] = special
    return data


def _make(lib, data: np.ndarray, kind: str, grad: str):
    """The tensor of ``data`` as ``kind`` in ``lib``: a leaf, a grad leaf, or a result."""
    if kind == "bfloat16":
        t = lib.tensor(data.astype(np.float32)).to(lib.bfloat16)
    else:
        t = lib.tensor(data if kind == "bool" else data.astype(kind))
    if grad != "none":
        t.requires_grad_(True)
    return t * 1 if grad == "fn" else t


def differences(torch, count: int = 200, seed: int = 0) -> list:
    """(case, ours, theirs) for each of ``count`` seeded random tensors printed differently."""
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(count):
        shape = _SHAPES[int(rng.integers(0, len(_SHAPES)))]
        kind = str(rng.choice(_KINDS))
        grad = str(rng.choice(["none"] * 4 + ["leaf", "fn"])) if kind in _FLOATS else "none"
        options = _OPTIONS[int(rng.integers(0, len(_OPTIONS)))]
        default = "float64" if rng.random() < 0.08 else "float32"
        with np.errstate(over="ignore", invalid="ignore"):
            data = _values(rng, shape, kind)
        ours, theirs = (_print_with(lib, options, functools.partial(_make, lib, data, kind, grad),
                                    default) for lib in (tl, torch))
        if _normalise(ours) != _normalise(theirs):
            found.append(((shape, kind, grad, options, default), ours, theirs))
    return found


def test_random_tensors_print_as_pytorch():
    torch = pytest.importorskip("torch")
    found = differences(torch)
    assert not found, "\n\n".join(f"{case}\n{ours}\n{theirs}" for case, ours, theirs in found[:3])


if __name__ == "__main__":
    import torch as _torch

    diffs = differences(_torch, *(int(a) for a in sys.argv[1:3]))
    for case, ours, theirs in diffs:
        print(case, "\n--- ours\n" + ours + "\n--- torch\n" + theirs + "\n")
    print(f"{len(diffs)} differences")
