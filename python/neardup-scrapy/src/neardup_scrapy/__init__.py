"""Scrapy integration for ``neardup serve``: a downloader middleware that
drops duplicate and near-duplicate pages before the spider parses them.

Enable it with::

    NEARDUP_URL = "http://127.0.0.1:8686"
    DOWNLOADER_MIDDLEWARES = {"neardup_scrapy.NeardupMiddleware": 580}
"""

from .base import CircuitBreaker, DedupMiddleware
from .client import SidecarClient, SidecarError
from .middleware import PRIORITY, UNAVAILABLE, NeardupMiddleware, unavailable_crawls

__all__ = [
    "PRIORITY",
    "UNAVAILABLE",
    "CircuitBreaker",
    "DedupMiddleware",
    "NeardupMiddleware",
    "SidecarClient",
    "SidecarError",
    "unavailable_crawls",
]
__version__ = "0.1.0"
