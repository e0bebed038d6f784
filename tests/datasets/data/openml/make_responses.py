"""Write the stored OpenML responses the openml tests serve (run once; its output is committed):
a tiny dataset of our own, id 990001, in two uploads (version 1, and version 2 with one value
changed), each as OpenML's API answers: the description, the features and the qualities as
gzipped JSON, and the data as gzipped ARFF, named as scikit-learn's own tests name them."""

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
DATA_ID = 990001


def arff(version: int) -> bytes:
    rng = np.random.default_rng(3)
    rows = []
    for i, cls in enumerate(["low", "mid", "high"] * 4):
        a, b, c = (rng.normal(3.0 * ["low", "mid", "high"].index(cls), 0.2, 3)).round(3)
        if version == 2 and i == 0:
            a += 1.0
        rows.append(f"{a},{b},{c},{cls}")
    text = "\n".join(
        [
            "@RELATION tiny",
            "@ATTRIBUTE a NUMERIC",
            "@ATTRIBUTE b NUMERIC",
            "@ATTRIBUTE c NUMERIC",
            "@ATTRIBUTE class {low,mid,high}",
            "@DATA",
            *rows,
        ]
    )
    return (text + "\n").encode()


def write(folder: Path, name: str, payload: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(folder / name, "wb", mtime=0) as f:
        f.write(payload)


for version in (1, 2):
    folder = HERE / f"v{version}"
    data = arff(version)
    file_id = 990100 + version
    description = {
        "data_set_description": {
            "id": str(DATA_ID),
            "name": "kmdr-tiny",
            "version": str(version),
            "format": "ARFF",
            "upload_date": "2026-01-01T00:00:00",
            "licence": "Public",
            "description": "A tiny dataset of kmdr's tests: three blobs of four rows.",
            "url": f"https://www.openml.org/data/v1/download/{file_id}/kmdr-tiny.arff",
            "file_id": str(file_id),
            "default_target_attribute": "class",
            "visibility": "public",
            "status": "active",
            "md5_checksum": hashlib.md5(data).hexdigest(),
        }
    }
    features = {
        "data_features": {
            "feature": [
                *(
                    {
                        "index": str(i),
                        "name": n,
                        "data_type": "numeric",
                        "is_target": "false",
                        "is_ignore": "false",
                        "is_row_identifier": "false",
                        "number_of_missing_values": "0",
                    }
                    for i, n in enumerate("abc")
                ),
                {
                    "index": "3",
                    "name": "class",
                    "data_type": "nominal",
                    "nominal_values": '["low","mid","high"]',
                    "is_target": "true",
                    "is_ignore": "false",
                    "is_row_identifier": "false",
                    "number_of_missing_values": "0",
                },
            ]
        }
    }
    qualities = {
        "data_qualities": {
            "quality": [
                {"name": "NumberOfInstances", "value": "12.0"},
                {"name": "NumberOfFeatures", "value": "4.0"},
            ]
        }
    }
    write(folder, f"api-v1-jd-{DATA_ID}.json.gz", json.dumps(description).encode())
    write(folder, f"api-v1-jdf-{DATA_ID}.json.gz", json.dumps(features).encode())
    write(folder, f"api-v1-jdq-{DATA_ID}.json.gz", json.dumps(qualities).encode())
    write(folder, f"data-v1-dl-{file_id}.arff.gz", data)
