"""``warp._src.autograd``: the metadata ``warp.autograd`` keeps of a
function whose Jacobians it computes (labels, strides and dtypes of its
inputs and outputs)."""


class FunctionMetadata:
    """Names, strides and dtypes of a function's inputs and outputs
    (``key`` None: nothing known)."""

    def __init__(
        self,
        key=None,
        input_labels=None,
        output_labels=None,
        input_strides=None,
        output_strides=None,
        input_dtypes=None,
        output_dtypes=None,
    ):
        self.key = key
        self.input_labels = input_labels
        self.output_labels = output_labels
        self.input_strides = input_strides
        self.output_strides = output_strides
        self.input_dtypes = input_dtypes
        self.output_dtypes = output_dtypes

    @property
    def is_empty(self):
        return self.key is None

    def input_is_array(self, i):
        return self.input_strides is not None and self.input_strides[i] is not None

    def output_is_array(self, i):
        return self.output_strides is not None and self.output_strides[i] is not None
