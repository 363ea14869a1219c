"""``fad.random``'s keys and bits: Threefry-2x32 against the Random123 paper's
known answers, JAX's streams bit for bit, the same numbers eagerly, under
``jit`` and under ``vmap``, independent split keys, and the errors."""

import warnings

import numpy as np
import pytest

import fad
import fad.random as fr
from fad.random._keys import threefry_2x32

# Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC11), the
# known-answer vectors of threefry2x32_20: (key, counter) -> output
KNOWN_ANSWERS = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


def _words(*vals):
    return [np.array([v], np.uint32) for v in vals]


@pytest.mark.parametrize("key,ctr,expected", KNOWN_ANSWERS)
def test_threefry_known_answers(key, ctr, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # uint32 additions wrap without a warning
        out = threefry_2x32(*_words(*key), *_words(*ctr))
    assert [int(np.asarray(w)[0]) for w in out] == list(expected)


def test_threefry_on_array_api_strict_wraps_silently():
    xp = pytest.importorskip("array_api_strict")
    for key, ctr, expected in KNOWN_ANSWERS:
        words = [xp.asarray(np.full(3, v, np.uint32)) for v in key + ctr]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = threefry_2x32(*words)
        assert [np.asarray(w).tolist() for w in out] == [[v] * 3 for v in expected]


def test_threefry_traces_and_batches():
    words = [np.arange(5, dtype=np.uint32) * np.uint32(0x9E3779B9) for _ in range(4)]
    eager = threefry_2x32(*words)
    jitted = fad.jit(threefry_2x32)(*words)
    for e, j in zip(eager, jitted):
        assert np.array_equal(e, j)


def test_key_from_seeds():
    assert fr.key(42).tolist() == [0, 42]
    assert fr.PRNGKey(0).dtype == np.uint32 and fr.PRNGKey(0).shape == (2,)
    assert fr.key(2 ** 40 + 5).tolist() == [256, 5]
    assert fr.key(-1).tolist() == [2 ** 32 - 1] * 2  # the seed's 64 bits
    assert fr.key(np.int64(7)).tolist() == [0, 7]
    assert fad.jit(fr.key)(np.int64(2 ** 33 + 1)).tolist() == [2, 1]
    assert fr.key_data(fr.key(3)).tolist() == [0, 3]
    assert fr.wrap_key_data(np.array([1, 2], np.uint32)).tolist() == [1, 2]


def test_golden_streams():
    """Fixed numbers: a stream never changes between runs or versions."""
    k = fr.key(42)
    assert fr.split(k).tolist() == [[1832780943, 270669613], [64467757, 2916123636]]
    assert fr.fold_in(k, 7).tolist() == [2547012911, 1371500959]
    assert fr.bits(k, (5,)).tolist() == [2098992034, 2919706841, 2646866425, 2409546199,
                                         1935504149]
    np.testing.assert_array_equal(fr.uniform(k, (3,), np.float32),
                                  np.array([0.48870957, 0.6797972, 0.6162715], np.float32))


def test_shapes_and_dtypes_of_bits():
    k = fr.key(0)
    assert fr.bits(k).shape == () and fr.bits(k).dtype == np.uint32
    assert fr.bits(k, (0, 3)).shape == (0, 3)
    for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
        assert fr.bits(k, (2, 2), dt).dtype == dt
    assert fr.split(k, (2, 3)).shape == (2, 3, 2)
    assert fr.split(k, 0).shape == (0, 2)


def test_split_keys_are_independent():
    keys = fr.split(fr.key(0), 8)
    assert len({tuple(k) for k in keys.tolist()}) == 8
    streams = [fr.bits(k, (5000,), np.uint64).tolist() for k in keys]
    seen = set()
    for s in streams:  # 64-bit draws: a coincidence has probability ~1e-11
        assert not seen & set(s)
        seen |= set(s)
    u = np.stack([fr.uniform(k, (5000,)) for k in keys])
    corr = np.corrcoef(u)[np.triu_indices(8, 1)]
    assert np.abs(corr).max() < 4 / np.sqrt(5000)
    # a split key and its parent, and fold_in of neighbouring data, differ
    k = fr.key(0)
    assert not np.array_equal(fr.bits(k, (100,)), fr.bits(fr.split(k)[0], (100,)))
    assert not np.array_equal(fr.fold_in(k, 1), fr.fold_in(k, 2))


def test_same_stream_twice_and_keys_unchanged():
    k = fr.key(5)
    before = np.asarray(k).copy()
    assert np.array_equal(fr.normal(k, (100,)), fr.normal(k, (100,)))
    assert np.array_equal(np.asarray(k), before)


def test_jit_and_vmap_over_keys_give_the_loops_numbers():
    keys = fr.split(fr.key(1), 5)
    f = lambda k: fr.uniform(k, (3,))  # noqa: E731
    loop = np.stack([f(k) for k in keys])
    assert np.array_equal(fad.vmap(f)(keys), loop)
    assert np.array_equal(fad.jit(fad.vmap(f))(keys), loop)
    assert np.array_equal(fad.vmap(fr.split)(keys), np.stack([fr.split(k) for k in keys]))
    data = np.arange(5, dtype=np.uint32)
    assert np.array_equal(fad.vmap(fr.fold_in)(keys, data),
                          np.stack([fr.fold_in(k, int(d)) for k, d in zip(keys, data)]))


def test_integer_seed_instead_of_key():
    with pytest.raises(TypeError, match=r"fad\.random\.key\(3\)"):
        fr.normal(3, (2,))
    with pytest.raises(TypeError, match=r"fad\.random\.uniform.*fad\.random\.key\(0\)"):
        fr.uniform(0)


@pytest.mark.parametrize("bad", [np.zeros(2, np.float32), np.zeros(3, np.uint32),
                                 np.zeros((4, 2), np.uint32), "key"])
def test_wrong_key_names_prngkey(bad):
    with pytest.raises(TypeError, match=r"fad\.random\.PRNGKey"):
        fr.normal(bad)


def test_wrong_arguments():
    k = fr.key(0)
    with pytest.raises(ValueError, match="floating"):
        fr.uniform(k, (2,), np.int32)
    with pytest.raises(TypeError, match="unsigned"):
        fr.bits(k, (2,), np.int32)
    with pytest.raises(TypeError, match="integer seed"):
        fr.key(1.5)
    with pytest.raises(TypeError, match="shape"):
        fr.normal(k, (2.5,))


def _with_x64(jax):
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    return old


def test_streams_match_jax_bit_for_bit():
    """JAX 0.10's default, ``jax_threefry_partitionable = True``: the counters
    of a draw of shape s are the flat indices as 64-bit numbers."""
    jax = pytest.importorskip("jax")
    assert jax.config.jax_threefry_partitionable
    old = _with_x64(jax)
    try:
        for seed in (0, 2 ** 33 + 7, 42):
            k, jk = fr.key(seed), jax.random.PRNGKey(seed)
            assert np.array_equal(k, jk)
            assert np.array_equal(fr.split(k, 7), jax.random.split(jk, 7))
            assert np.array_equal(fr.fold_in(k, seed), jax.random.fold_in(jk, seed % 2 ** 32))
        assert np.array_equal(fr.split(k, (2, 3)), jax.random.split(jk, (2, 3)))
        for d in (0, 1, 123456, 2 ** 32 - 1):
            assert np.array_equal(fr.fold_in(k, d), jax.random.fold_in(jk, d))
        for dt in ("uint8", "uint16", "uint32", "uint64"):
            assert np.array_equal(fr.bits(k, (4, 5), dt), jax.random.bits(jk, (4, 5), dt))
        for dt in ("float16", "float32", "float64"):
            assert np.array_equal(fr.uniform(k, (1001,), dt),
                                  jax.random.uniform(jk, (1001,), dt))
        # with other bounds XLA fuses u * (b - a) + a into one rounding: 1 ulp apart
        np.testing.assert_allclose(fr.uniform(k, (50,), minval=-2.0, maxval=5.0),
                                   jax.random.uniform(jk, (50,), minval=-2.0, maxval=5.0),
                                   rtol=4e-16, atol=1e-15)
        # normal = sqrt(2) erfinv(u): JAX's erfinv differs in the last bits
        np.testing.assert_allclose(fr.normal(k, (1000,)), jax.random.normal(jk, (1000,)),
                                   rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(fr.normal(k, (1000,), "float32"),
                                   jax.random.normal(jk, (1000,), "float32"),
                                   rtol=1e-5, atol=2e-5)
    finally:
        jax.config.update("jax_enable_x64", old)
