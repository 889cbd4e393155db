"""Storage helpers the volume plugins share: component-helpers' storage/volume rules
(``helpers``) and csi-translation-lib (``translation``)."""
