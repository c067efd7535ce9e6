import numpy as np
import pytest

from engine import TransformerConfig, init_params


@pytest.fixture
def small_config() -> TransformerConfig:
    return TransformerConfig(
        src_vocab_size=11,
        tgt_vocab_size=9,
        d_model=8,
        n_heads=2,
        d_ff=12,
        n_encoder_layers=2,
        n_decoder_layers=2,
    )


@pytest.fixture
def small_params(small_config):
    return init_params(small_config, np.random.default_rng(1234))
