"""A Jupyter-centred reproducibility workbook for GUI-agent research: PAGER / PAGE Bench, LBS, VLAA-GUI and GraceBench side by side.

Modules:

- `guilab.train.zoom_ocr`: LBS's zoom-in policy at CPU scale, reading through OCR: the policy's view of each image it is shown (the first view and every crop) is the text an OCR reader finds on it, the policy is taught by a privileged teacher (copy warm-up, then SFT on zoom conversations in the plain-text protocol), then trained with GRPO on the five LBS rewards through the same `ZoomEnv` that evaluation uses."""

__version__ = "0.0.1"
