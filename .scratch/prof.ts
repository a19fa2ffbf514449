import { limitsEngine } from "../src/engines/limits/index.js";
import { cidrPolicyText } from "../bench/scale/cidr.js";
