"""Stand-in for hermes-lcm's config.py (tests only)."""


class LCMConfig:
    enabled = True

    @classmethod
    def from_env(cls):
        return cls()
