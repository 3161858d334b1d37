"""The curated reference files landed as sources (pipelines/specs/reference.py): launch_dates.json and
nvidia_gpus.json. The AWS region table both layers read is schemas/regions.py, with schemas/aws_regions.json."""
