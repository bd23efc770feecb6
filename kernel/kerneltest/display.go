package kerneltest

// DisplaySetup is Python that makes what tests of IPython's display
// protocol show: PNG and JPEG bytes (printed as base64, PNG first) and
// objects with a _repr_mimebundle_ (whose bundle wins for the types it
// gives, the other _repr_*_ methods filling the rest) and with a
// _repr_png_ returning bytes and metadata. Model code reaches these names
// through IPython.display, imported here.
const DisplaySetup = `import base64, io
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import display, HTML, Markdown, SVG, Image, JSON, Latex, display_markdown, publish_display_data

def _image(fmt):
    buf = io.BytesIO()
    plt.imsave(buf, np.linspace(0, 1, 24).reshape(2, 4, 3), format=fmt)
    return buf.getvalue()

PNG, JPEG = _image("png"), _image("jpeg")

class Bundled:
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": "<i>from the bundle</i>", "text/plain": "bundled"}, {"text/html": {"isolated": True}}
    def _repr_html_(self):
        return "<i>from _repr_html_</i>"
    def _repr_markdown_(self):
        return "*markdown*"

class RawPNG:
    def _repr_png_(self):
        return PNG, {"width": 8}
    def __repr__(self):
        return "RawPNG()"

print(base64.b64encode(PNG).decode())
print(base64.b64encode(JPEG).decode())`
