"""What every layer stands on (layer 0): the accountant contract (``accountant``: the ``Accountant``
Protocol and its ``Bound`` sides), progress reporting (``progress``), and the package's internal
plumbing: one validation path (``validation``), the broadcasting front end of the element-wise
kernels (``elementwise``), the message for a missing optional extra (``optional``), the old
module paths kept importing (``moved``) and a certified side as text, rounded outward
(``outward_text``).

Nothing here imports numpy at package import, and nothing here imports a higher layer.
"""
