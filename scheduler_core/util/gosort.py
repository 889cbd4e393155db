"""Go's ``sort.Slice``, ported call for call, so that even an inconsistent ``less`` gives Go's result.

kube-scheduler sorts with comparators that are not strict weak orders (``util.MoreImportantPod``
on pods without a start time reads ``time.Now()`` for each pod, so equal-priority pods compare
"more important" both ways). What such a sort returns is whatever the exact sequence of Less and
Swap calls makes of it, so this module reproduces that sequence: ``sort/slice.go`` (``Slice``:
``limit := bits.Len(uint(length))``) and the pattern-defeating quicksort of ``sort/zsortfunc.go``
(``pdqsort_func`` with ``insertionSort_func``, ``heapSort_func``/``siftDown_func``,
``partition_func``, ``partitionEqual_func``, ``partialInsertionSort_func``,
``breakPatterns_func``, ``choosePivot_func``/``median_func``/``medianAdjacent_func``/
``order2_func`` and ``reverseRange_func``), as in Go 1.19 through 1.25; the quirks are kept on
purpose (e.g. ``partialInsertionSort_func`` shifting left down to index 1, not ``a + 1``).

Every ``less(x, y)`` here is Go's ``data.Less(i, j)`` with ``x = data[i]`` and ``y = data[j]`` at
the moment of the call, in the same order, and every swap is Go's ``data.Swap(i, j)``.

The one difference between Go releases that matters is the xorshift generator in
``sort/sort.go`` that ``breakPatterns_func`` seeds with the sub-slice length: Go 1.19-1.23 shift by
(13, 17, 5), Go 1.24 on (golang/go#70144) by (13, 7, 17). kube-scheduler v1.35 is built with
Go 1.25, so that is the default; ``XORSHIFT_GO119`` selects the older one.
"""

from __future__ import annotations

from typing import Callable, Generic, Iterable, MutableSequence, TypeVar

__all__ = ["sort_slice", "sorted_slice", "bits_len", "XORSHIFT_GO119", "XORSHIFT_GO124"]

T = TypeVar("T")
Less = Callable[[T, T], bool]

_MASK64 = (1 << 64) - 1

# (left, right, left) shift amounts of sort.xorshift.Next.
XORSHIFT_GO119: tuple[int, int, int] = (13, 17, 5)  # Go 1.19 - 1.23
XORSHIFT_GO124: tuple[int, int, int] = (13, 7, 17)  # Go 1.24 and later (kube-scheduler v1.35)

_MAX_INSERTION = 12  # pdqsort_func: maxInsertion
_SHORTEST_NINTHER = 50  # choosePivot_func
_MAX_SWAPS = 4 * 3  # choosePivot_func
_MAX_STEPS = 5  # partialInsertionSort_func
_SHORTEST_SHIFTING = 50  # partialInsertionSort_func

_UNKNOWN_HINT, _INCREASING_HINT, _DECREASING_HINT = 0, 1, 2  # sortedHint


def bits_len(x: int) -> int:
    """math/bits.Len for a non-negative int: the bits needed to represent x (0 for 0)."""
    return x.bit_length()


def sort_slice(data: MutableSequence[T], less: Less[T], *, xorshift: tuple[int, int, int] = XORSHIFT_GO124) -> None:
    """sort.Slice(data, func(i, j int) bool { return less(data[i], data[j]) }), in place."""
    length = len(data)
    _Sorter(data, less, xorshift).pdqsort(0, length, bits_len(length))


def sorted_slice(items: Iterable[T], less: Less[T], *, xorshift: tuple[int, int, int] = XORSHIFT_GO124) -> list[T]:
    """A sorted copy of ``items``, as ``sort_slice`` leaves it."""
    data = list(items)
    sort_slice(data, less, xorshift=xorshift)
    return data


class _Sorter(Generic[T]):
    """zsortfunc.go's functions over one slice; the method names follow Go's without ``_func``."""

    __slots__ = ("data", "less_fn", "shifts")

    def __init__(self, data: MutableSequence[T], less: Less[T], shifts: tuple[int, int, int]) -> None:
        self.data = data
        self.less_fn = less
        self.shifts = shifts

    # lessSwap
    def less(self, i: int, j: int) -> bool:
        data = self.data
        return bool(self.less_fn(data[i], data[j]))

    def swap(self, i: int, j: int) -> None:
        data = self.data
        data[i], data[j] = data[j], data[i]

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                break
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first = a
        lo = 0
        hi = b - a
        # Build heap with greatest element at top. (Go's int division truncates toward zero.)
        i = (hi - 1) // 2 if hi >= 1 else 0
        while i >= 0:
            self.sift_down(i, hi, first)
            i -= 1
        # Pop elements, largest first, into end of data.
        i = hi - 1
        while i >= 0:
            self.swap(first, first + i)
            self.sift_down(lo, i, first)
            i -= 1

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = True
        was_partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            # Fall back to heapsort if too many bad choices were made.
            if limit == 0:
                self.heap_sort(a, b)
                return
            # If the last partitioning was imbalanced, break patterns.
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1

            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING_HINT:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING_HINT

            # The slice is likely already sorted.
            if was_balanced and was_partitioned and hint == _INCREASING_HINT:
                if self.partial_insertion_sort(a, b):
                    return

            # Probably many duplicates: partition into equal to and greater than the pivot.
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue

            mid, already_partitioned = self.partition(a, b, pivot)
            was_partitioned = already_partitioned

            left_len, right_len = mid - a, b - mid
            balance_threshold = length // 8
            if left_len < right_len:
                was_balanced = left_len >= balance_threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right_len >= balance_threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i += 1
        j -= 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        return i

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        i = a + 1
        for _ in range(_MAX_STEPS):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHORTEST_SHIFTING:
                return False
            self.swap(i, i - 1)
            # Shift the smaller one to the left (Go's loop runs down to index 1, not a + 1).
            if i - a >= 2:
                j = i - 1
                while j >= 1:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j -= 1
            # Shift the greater one to the right.
            if b - i >= 2:
                j = i + 1
                while j < b:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j += 1
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length >= 8:
            left, right, left2 = self.shifts
            random = length  # xorshift(length)
            modulus = 1 << bits_len(length)  # nextPowerOfTwo(length)
            idx = a + (length // 4) * 2 - 1
            while idx <= a + (length // 4) * 2 + 1:
                random ^= (random << left) & _MASK64
                random ^= random >> right
                random ^= (random << left2) & _MASK64
                other = random & (modulus - 1)
                if other >= length:
                    other -= length
                self.swap(idx, a + other)
                idx += 1

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        n = b - a
        swaps = [0]
        i = a + n // 4 * 1
        j = a + n // 4 * 2
        k = a + n // 4 * 3
        if n >= 8:
            if n >= _SHORTEST_NINTHER:
                # Tukey ninther method.
                i = self.median_adjacent(i, swaps)
                j = self.median_adjacent(j, swaps)
                k = self.median_adjacent(k, swaps)
            # Find the median among i, j, k and store it into j.
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING_HINT
        if swaps[0] == _MAX_SWAPS:
            return j, _DECREASING_HINT
        return j, _UNKNOWN_HINT

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def median_adjacent(self, a: int, swaps: list[int]) -> int:
        return self.median(a - 1, a, a + 1, swaps)

    def reverse_range(self, a: int, b: int) -> None:
        i = a
        j = b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1
