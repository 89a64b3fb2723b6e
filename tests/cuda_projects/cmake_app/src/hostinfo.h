#pragma once
int report_devices();
