from typing import Any

def launch_args(func: int, grid: Any, block: Any, args: tuple, shmem: int,
                stream: int) -> None: ...
